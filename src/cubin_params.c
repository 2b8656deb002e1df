/* cubin_params.c - a kernel's parameters as its cubin records them: the
 * ELF section .nv.info.<entry> holds an EIATTR_KPARAM_INFO record per
 * parameter (its ordinal, offset and size), so that arguments can be
 * checked where no driver is there to ask. The cubin is read as hostile:
 * every offset and length is checked against the bytes there are. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define SHT_CUDA_INFO 0x70000000u
#define EIFMT_SVAL 0x04
#define EIATTR_KPARAM_INFO 0x17
/* Kernel parameters fill at most 32764 bytes, one byte each at least. */
#define MAX_PARAMS 32768

static uint16_t u16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t u64(const unsigned char *p)
{
	return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
}

/* The section of type SHT_CUDA_INFO named ".nv.info." entry: its bytes. */
static int find_info(const unsigned char *b, size_t size, const char *entry,
                     const unsigned char **sec, size_t *len)
{
	/* a little-endian ELF64 (ELFCLASS64, ELFDATA2LSB) */
	if (size < 64 || memcmp(b, "\177ELF", 4) != 0 || b[4] != 2 || b[5] != 1)
		return 0;
	uint64_t shoff = u64(b + 0x28);
	size_t entsize = u16(b + 0x3a), shnum = u16(b + 0x3c), shstrndx = u16(b + 0x3e);
	if (entsize < 64 || shstrndx >= shnum || shoff > size || shnum > (size - shoff) / entsize)
		return 0;
	const unsigned char *strs = b + shoff + shstrndx * entsize;
	uint64_t str_off = u64(strs + 0x18), str_len = u64(strs + 0x20);
	if (str_off > size || str_len > size - str_off)
		return 0;
	size_t want = strlen(entry) + 10;
	for (size_t i = 0; i < shnum; i++) {
		const unsigned char *sh = b + shoff + i * entsize;
		uint64_t name = u32(sh), off = u64(sh + 0x18), n = u64(sh + 0x20);
		if (u32(sh + 4) != SHT_CUDA_INFO || name >= str_len || str_len - name < want + 1 ||
		    off > size || n > size - off)
			continue;
		const char *s = (const char *)b + str_off + name;
		if (memcmp(s, ".nv.info.", 9) == 0 && memcmp(s + 9, entry, want - 9) == 0) {
			*sec = b + off;
			*len = (size_t)n;
			return 1;
		}
	}
	return 0;
}

kjit_status kjit__cubin_params(const void *cubin, size_t size, const char *entry,
                               size_t **offset, size_t **psize, size_t *n)
{
	const unsigned char *sec;
	size_t len, count = 0;
	*offset = *psize = NULL;
	*n = 0;
	if (!cubin || !entry || !find_info(cubin, size, entry, &sec, &len))
		return KJIT_ERR_NOT_FOUND;
	/* two passes: count the records (ordinals must be 0..count-1), then fill */
	for (int fill = 0; fill < 2; fill++) {
		int seen = 0;
		for (size_t p = 0; p + 4 <= len;) {
			size_t rec = 4;
			if (sec[p] == EIFMT_SVAL) {
				rec += u16(sec + p + 2);
				if (rec > len - p)
					return KJIT_ERR_NOT_FOUND;
			}
			if (sec[p] == EIFMT_SVAL && sec[p + 1] == EIATTR_KPARAM_INFO && rec >= 16) {
				size_t ord = u16(sec + p + 8);
				if (!fill && ++count > MAX_PARAMS)
					return KJIT_ERR_NOT_FOUND;
				if (fill && ord < count) {
					(*offset)[ord] = u16(sec + p + 10);
					(*psize)[ord] = (u32(sec + p + 12) >> 18) & 0x3fff;
				}
				seen = 1;
			}
			p += rec;
		}
		if (!seen)
			break; /* a kernel without parameters */
		if (!fill) {
			*offset = malloc(count * sizeof **offset);
			*psize = malloc(count * sizeof **psize);
			if (!*offset || !*psize) {
				free(*offset);
				free(*psize);
				*offset = *psize = NULL;
				return kjit__error(KJIT_ERR_NOMEM, "out of memory");
			}
			for (size_t i = 0; i < count; i++)
				(*offset)[i] = (*psize)[i] = 0; /* an ordinal missing: a mismatch, shown */
		}
	}
	*n = count;
	return KJIT_OK;
}
