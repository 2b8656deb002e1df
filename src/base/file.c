/*
 * file.c - reading a whole text file (kernel sources, specs).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

kjit_status kjit__read_text(const char *path, char **out, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	*out = NULL;
	if (!f)
		return kjit__error(KJIT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	for (;;) {
		if (len + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 65536 * 2;
			char *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return kjit__error(KJIT_ERR_NOMEM, "out of memory reading %s", path);
			}
			buf = b;
		}
		size_t got = fread(buf + len, 1, 65536, f);
		len += got;
		if (got < 65536)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return kjit__error(KJIT_ERR_IO, "%s: read error", path);
	}
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	return KJIT_OK;
}
