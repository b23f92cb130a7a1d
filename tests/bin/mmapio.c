/* mmapio: file I/O through mappings, for the mmap capture test.
 *
 * usage: mmapio WRITE_FILE BYTES READ_FILE
 *   Creates WRITE_FILE, sizes it to BYTES, maps it shared and writes every
 *   byte through the mapping, msyncs (MS_SYNC) and unmaps it; then drops
 *   READ_FILE from the page cache (posix_fadvise DONTNEED), maps it shared
 *   read-only and reads every byte of it through the mapping. Prints
 *   "written BYTES at ADDR" and "read N bytes at ADDR sum S".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_mapped(const char *path, size_t n)
{
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	unsigned char *p;

	if (fd < 0 || ftruncate(fd, (off_t)n)) {
		perror(path);
		return 1;
	}
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + 1);
	if (msync(p, n, MS_SYNC) || munmap(p, n) || close(fd)) {
		perror("msync");
		return 1;
	}
	printf("written %zu at %p\n", n, (void *)p);
	return 0;
}

static int read_mapped(const char *path)
{
	int fd = open(path, O_RDONLY);
	unsigned long sum = 0;
	const unsigned char *p;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
		perror(path);
		return 1;
	}
	/* cold: every page comes from the file */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off_t i = 0; i < st.st_size; i++)
		sum += p[i];
	printf("read %lld bytes at %p sum %lu\n", (long long)st.st_size,
	       (const void *)p, sum);
	return munmap((void *)p, (size_t)st.st_size) || close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: mmapio WRITE_FILE BYTES READ_FILE\n");
		return 2;
	}
	if (write_mapped(argv[1], strtoull(argv[2], NULL, 0)))
		return 1;
	return read_mapped(argv[3]);
}
