/* link_kinds.c - the kinds of link input: their words in specs, the file
 * endings that imply them, and nvJitLink's input type of each. Apart from
 * link.c so that the spec reader needs no nvJitLink to name a kind. */
#include "config.h"

#include <string.h>

#include <nvJitLink.h>

#include "engine.h"

static const struct {
	const char *word;
	nvJitLinkInputType type;
	const char *const ext[3]; /* file name endings that imply the kind */
} kinds[] = {
	[KJIT_LINK_LTOIR] = { "ltoir", NVJITLINK_INPUT_LTOIR, { ".ltoir", ".lto", NULL } },
	[KJIT_LINK_CUBIN] = { "cubin", NVJITLINK_INPUT_CUBIN, { ".cubin", NULL } },
	[KJIT_LINK_FATBIN] = { "fatbin", NVJITLINK_INPUT_FATBIN, { ".fatbin", ".fatbinary", NULL } },
	[KJIT_LINK_OBJECT] = { "object", NVJITLINK_INPUT_OBJECT, { ".o", ".obj", NULL } },
	[KJIT_LINK_LIBRARY] = { "library", NVJITLINK_INPUT_LIBRARY, { ".a", ".lib", NULL } },
	[KJIT_LINK_PTX] = { "ptx", NVJITLINK_INPUT_PTX, { ".ptx", NULL } },
	[KJIT_LINK_SOURCE] = { "source", NVJITLINK_INPUT_LTOIR, { ".cu", ".cuh", NULL } },
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

int kjit__link_kind_known(kjit_link_kind kind)
{
	return (unsigned)kind < N_KINDS && kinds[kind].word;
}

const char *kjit__link_kind_name(kjit_link_kind kind)
{
	return kjit__link_kind_known(kind) ? kinds[kind].word : "unknown";
}

kjit_link_kind kjit__link_kind_parse(const char *word)
{
	for (size_t k = 0; word && k < N_KINDS; k++)
		if (kinds[k].word && strcmp(kinds[k].word, word) == 0)
			return (kjit_link_kind)k;
	return 0;
}

kjit_link_kind kjit__link_kind_of_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return 0;
	for (size_t k = 0; k < N_KINDS; k++)
		for (size_t i = 0; kinds[k].word && i < 3 && kinds[k].ext[i]; i++)
			if (strcmp(dot, kinds[k].ext[i]) == 0)
				return (kjit_link_kind)k;
	return 0;
}

int kjit__link_kind_input(kjit_link_kind kind)
{
	return kjit__link_kind_known(kind) ? (int)kinds[kind].type : -1;
}
