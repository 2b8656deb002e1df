/*
 * fuzz-cubin - the reader of a kernel's parameters in its cubin
 * (src/cubin_params.c), which reads binaries from a database others may
 * write: any bytes, for a fixed entry name and for one taken from the
 * input, must be refused or read within their bounds (ASan and UBSan
 * watch every byte it reads).
 * Seeds: cubin-seeds/ (NVRTC's cubins of kernels of several parameter
 * kinds). Dictionary: cubin.dict.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"

static void read_params(const unsigned char *data, size_t size, const char *entry)
{
	size_t *offset = NULL, *psize = NULL, n = 0;
	if (kjit__cubin_params(data, size, entry, &offset, &psize, &n) != KJIT_OK)
		return;
	free(offset);
	free(psize);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	read_params(data, size, "k");
	/* the entry name from the input's last bytes, NUL-ended */
	char entry[64];
	size_t len = size < sizeof entry - 1 ? size : sizeof entry - 1;
	memcpy(entry, data + size - len, len);
	entry[len] = '\0';
	read_params(data, size, entry);
	return 0;
}
