/*
 * file.c - reading a whole file (specs, kernel sources, headers, link
 * inputs): regular files only, never waited on, within a size cap; and
 * writing one whole, through a temporary nobody else can plant.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

kjit_status kjit__open_regular(const char *path, int *fd, size_t *size)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO with no writer returns at once, and the
	 * fstat below refuses it. */
	*fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0)
		return kjit__error(KJIT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	const char *what = NULL;
	if (fstat(*fd, &st) != 0)
		what = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		what = "is a directory";
	else if (!S_ISREG(st.st_mode))
		what = S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file"
		       : S_ISSOCK(st.st_mode) ? "is a socket, not a regular file"
		                             : "is a device, not a regular file";
	else if (fcntl(*fd, F_SETFL, 0) != 0)
		what = strerror(errno);
	if (what) {
		close(*fd);
		*fd = -1;
		return kjit__error(KJIT_ERR_IO, "%s: cannot read: %s", path, what);
	}
	*size = (size_t)st.st_size;
	return KJIT_OK;
}

kjit_status kjit__budget_take(kjit__budget *b, size_t n, const char *who)
{
	if (n > b->left)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: the %s of one spec or kernel would pass "
		                   "%zu MiB in all, the most kjit reads", who, b->what,
		                   b->total >> 20);
	b->left -= n;
	return KJIT_OK;
}

/* The error of a file past max bytes: past its own cap, or past what b
 * (may be NULL) has left. */
static kjit_status too_large(const char *path, size_t max, kjit__budget *b)
{
	if (b && b->left <= max)
		return kjit__budget_take(b, b->left + 1, path);
	return kjit__error(KJIT_ERR_INVALID_ARG, "%s: larger than %zu MiB, the most kjit reads",
	                   path, max >> 20);
}

static kjit_status read_whole(const char *path, size_t max, kjit__budget *budget, char **out,
                              size_t *len_out)
{
	int fd;
	size_t size, len = 0;
	*out = NULL;
	if (budget && budget->left < max)
		max = budget->left;
	kjit_status st = kjit__open_regular(path, &fd, &size);
	if (st != KJIT_OK)
		return st;
	if (size > max) {
		close(fd);
		return too_large(path, max, budget);
	}
	/* The size fstat gave, plus room to see the file grew past max. */
	size_t cap = size + 1 + (size < max ? 1 : 0);
	char *buf = malloc(cap);
	while (buf) {
		ssize_t got = read(fd, buf + len, cap - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			st = got < 0 ? kjit__error(KJIT_ERR_IO, "%s: read error: %s", path,
			                           strerror(errno))
			             : KJIT_OK;
			break;
		}
		len += (size_t)got;
		if (len > max) {
			st = too_large(path, max, budget);
			break;
		}
		if (len == cap - 1) {
			size_t c = cap - 1 < max / 2 ? 2 * cap : max + 2;
			char *b = realloc(buf, c);
			if (!b)
				free(buf);
			buf = b;
			cap = c;
		}
	}
	close(fd);
	if (!buf)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory reading %s", path);
	if (st != KJIT_OK) {
		free(buf);
		return st;
	}
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	if (budget)
		budget->left -= len;
	return KJIT_OK;
}

kjit_status kjit__read_file(const char *path, size_t max, char **out, size_t *len)
{
	return read_whole(path, max, NULL, out, len);
}

kjit_status kjit__read_budget(const char *path, size_t max, kjit__budget *b, char **out,
                              size_t *len)
{
	return read_whole(path, max, b, out, len);
}

kjit_status kjit__read_text(const char *path, char **out, size_t *len)
{
	return kjit__read_file(path, KJIT__MAX_TEXT_BYTES, out, len);
}

kjit_status kjit__write_replace(const char *path, const char *what, kjit__file_writer write,
                                void *ctx)
{
	char *tmp = kjit__strdup_printf("%s.tmp.XXXXXX", path);
	if (!tmp)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	/* mkostemp() opens with O_CREAT | O_EXCL, mode 0600: a link already
	 * at the name is an error, never followed. */
	int fd = mkostemp(tmp, O_CLOEXEC);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	kjit_status st;
	if (!f) {
		st = kjit__error(KJIT_ERR_IO, "%s: cannot create a temporary file beside %s: %s",
		                 what, path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return st;
	}
	st = write(f, ctx);
	if (fclose(f) != 0 && st == KJIT_OK)
		st = kjit__error(KJIT_ERR_IO, "%s: writing %s: %s", what, tmp, strerror(errno));
	if (st == KJIT_OK && rename(tmp, path) != 0)
		st = kjit__error(KJIT_ERR_IO, "%s: cannot write %s: %s", what, path, strerror(errno));
	if (st != KJIT_OK)
		unlink(tmp);
	free(tmp);
	return st;
}
