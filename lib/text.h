/* lib/text.h: text from a log in human output. A log is hostile input: its
 * paths, comms and header fields may hold terminal controls (\e[2J clears
 * the screen, \e]0;...\a sets the title) or bytes that are no text at all.
 * Every human line that shows such text goes through here: printable ASCII
 * as it is, every other byte and the backslash itself as \xNN, so a
 * hostile string can neither drive the terminal nor break a line, and the
 * escaped form names the bytes exactly. Machine output (jsonl, --json)
 * goes through lib/json.h instead. */
#ifndef RIOT_LIB_TEXT_H
#define RIOT_LIB_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Whether byte c is written as \xNN: a control byte (C0, DEL), a byte
 * of no ASCII character (C1 controls among them), the backslash. For
 * outputs that add an escaping of their own (report/html.c). */
int text_escapes(unsigned char c);
/* Writes s escaped. */
void text_put(FILE *out, const char *s);
/* s escaped, malloc'ed; NULL when out of memory. */
char *text_dup(const char *s);
/* Writes s for an HTML page: as text_put() does, and <, >, & and " as
 * entities (report/html.c). */
void text_put_html(FILE *out, const char *s);
/* s itself when it needs no escaping, else s escaped into buf (len bytes),
 * cut with "..." when it does not fit: for printf arguments. */
const char *text_safe(const char *s, char *buf, size_t len);

#endif
