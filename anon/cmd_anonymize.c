/* anon/cmd_anonymize.c: `riot anonymize IN -o OUT [--key-file F]
 * [--keep-ext] [--keep PREFIX]...`. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "anon/anon.h"
#include "lib/cli.h"

const char cmd_anonymize_help[] =
	"Usage: riot anonymize IN... -o OUT [--key-file F] [--keep-ext] [--keep PREFIX]...\n"
	"\n"
	"Writes a copy of the log IN whose names cannot be read, so it can leave\n"
	"the host, and replays like IN: the same calls, sizes, offsets, times,\n"
	"results, fds, flags and modes, and the same tree under other names.\n"
	"\n"
	"  -o, --output OUT the anonymised log to write\n"
	"  --key-file F     the key: every byte of F (at least one). Without it a\n"
	"                   random key is made and not kept, so names of two runs\n"
	"                   cannot be matched, not even by you\n"
	"  --keep-ext       keep a file name's extension: 1 to 10 ASCII letters\n"
	"                   and digits after its last '.' (not a leading one)\n"
	"  --keep PREFIX    keep paths beneath the absolute PREFIX in the clear,\n"
	"                   matched by whole components (--keep /usr keeps\n"
	"                   /usr/lib/x, not /usrlocal); a name is judged by\n"
	"                   where its file lies, through the log's symlinks\n"
	"                   and .. (a link in /usr out of it hides what lies\n"
	"                   beyond); repeatable\n"
	"\n"
	"Every path component (of paths, rename and link targets, symlink\n"
	"targets and readlink results, executed files, the cwds and open fds of\n"
	"the start state) becomes 16 characters [a-z2-7] of its HMAC-SHA256\n"
	"under the key: the same component, the same name, so files shared\n"
	"between processes and the tree's shape stay. '/', '.' and '..' stay,\n"
	"as do /proc, /sys and /dev (replay treats their contents apart) and,\n"
	"beneath /proc, the digits, self, thread-self, task and fd that name an\n"
	"fd. Process names become 15 characters of their hash; xattr names keep\n"
	"their namespace (user.<hash>), the kernel's own names (system.,\n"
	"security.) and their values stay, other values are dropped (replay\n"
	"writes fill bytes of the recorded size). The header loses the host\n"
	"name, the command line and the target; the devices section (capture\n"
	"--block) loses its notes. What stays visible (sizes, times, the tree's\n"
	"shape) is a fingerprint: see docs/anonymize.md.\n"
	"\n"
	"A log cut short (a killed capture) gives a copy cut short at the same\n"
	"record. Records of types a newer riot wrote are left out and counted.\n"
	"Several logs are the segments of one rotated capture, in order: they\n"
	"are read as one log and written as one (whole) log.\n";

/* The key from a file: all of its bytes, 1 to ANON_KEY_MAX. */
static int read_key(const char *path, uint8_t **key, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	uint8_t *b;
	ssize_t r;

	if (fd < 0) {
		riot_err("--key-file %s: %s", path, strerror(errno));
		return -errno;
	}
	b = malloc(ANON_KEY_MAX + 1);
	if (!b) {
		close(fd);
		riot_err("out of memory");
		return -ENOMEM;
	}
	while (n <= ANON_KEY_MAX && (r = read(fd, b + n, ANON_KEY_MAX + 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			riot_err("--key-file %s: %s", path, strerror(errno));
			close(fd);
			free(b);
			return -EIO;
		}
		n += (size_t)r;
	}
	close(fd);
	if (n == 0 || n > ANON_KEY_MAX) {
		riot_err("--key-file %s: %s", path, n ? "longer than 1 MiB" : "empty: a key needs at least one byte");
		free(b);
		return -EINVAL;
	}
	*key = b;
	*len = n;
	return 0;
}

static int random_key(uint8_t **key, size_t *len)
{
	uint8_t *b = malloc(32);
	size_t n = 0;

	if (!b) {
		riot_err("out of memory");
		return -ENOMEM;
	}
	while (n < 32) {
		ssize_t r = getrandom(b + n, 32 - n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			riot_err("no random key: getrandom: %s", strerror(errno));
			free(b);
			return -errno;
		}
		n += (size_t)r;
	}
	*key = b;
	*len = n;
	return 0;
}

static void print_summary(const char *in, const char *out, const char *key_file,
			  const struct anon_stats *st)
{
	printf("anonymized %s -> %s%s\n", in, out, st->complete ? "" : " (cut short, as the input)");
	printf("  records     %" PRIu64 ", %" PRIu64 " strings rewritten\n", st->records, st->strings);
	printf("  components  %" PRIu64 " hashed, %" PRIu64 " kept in the clear\n", st->comps.hashed,
	       st->comps.clear);
	if (key_file)
		printf("  key         %s\n", key_file);
	else
		printf("  key         random, not kept: these names match no other anonymisation\n");
	if (st->xattr_values)
		printf("  dropped     %" PRIu64 " xattr values\n", st->xattr_values);
	if (st->device_notes)
		printf("  dropped     %" PRIu64 " device notes\n", st->device_notes);
	if (st->unknown)
		printf("  left out    %" PRIu64 " records of types this riot does not know\n", st->unknown);
	if (st->cut)
		printf("  cut         %" PRIu64 " strings longer than a log holds\n", st->cut);
	if (st->long_paths)
		printf("  long        %" PRIu64 " paths of 4096 bytes or more once renamed (replay\n"
		       "              cuts them)\n", st->long_paths);
}

int cmd_anonymize(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "key-file", required_argument, NULL, 'k' },
		{ "keep-ext", no_argument, NULL, 'e' },
		{ "keep", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct anon_opts o = { 0 };
	struct anon_stats st;
	const char *out = NULL, *key_file = NULL, **keep;
	uint8_t *key = NULL;
	char err[512];
	int c, rc;

	keep = calloc((size_t)argc, sizeof(*keep));
	if (!keep) {
		riot_err("out of memory");
		return RIOT_EXIT_FAIL;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'k': key_file = optarg; break;
		case 'e': o.keep_ext = true; break;
		case 'p':
			if (anon_check_keep(optarg, err, sizeof(err))) {
				free(keep);
				return riot_usage("%s", err);
			}
			keep[o.nkeep++] = optarg;
			break;
		default: free(keep); return riot_usage("bad option");
		}
	}
	o.keep = keep;
	if (optind == argc || !out) {
		free(keep);
		return riot_usage(optind == argc ? "give a .riot log" : "-o OUT is required");
	}
	if ((rc = riot_check_output(out))) {
		riot_err("%s: %s", out, strerror(-rc));
		free(keep);
		return RIOT_EXIT_FAIL;
	}
	rc = key_file ? read_key(key_file, &key, &o.key_len) : random_key(&key, &o.key_len);
	if (rc) {
		free(keep);
		return RIOT_EXIT_FAIL;
	}
	o.key = key;
	rc = anon_log(&(struct riot_logs){ (const char *const *)argv + optind,
					   (unsigned)(argc - optind) },
		      out, &o, &st, err, sizeof(err));
	memset(key, 0, o.key_len);
	free(key);
	free(keep);
	if (rc) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	print_summary(argv[optind], out, key_file, &st);
	return RIOT_EXIT_OK;
}
