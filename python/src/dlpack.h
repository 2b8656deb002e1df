/* dlpack.h - the DLPack structures kjit reads (DLPack 0.x and 1.x, a
 * stable C ABI), and the capsule names of the protocol. */
#ifndef KJITPY_DLPACK_H
#define KJITPY_DLPACK_H

#include <stdint.h>

enum {
	KJITPY_DL_CPU = 1,
	KJITPY_DL_CUDA = 2,
	KJITPY_DL_CUDA_HOST = 3,
	KJITPY_DL_CUDA_MANAGED = 13
};

typedef struct kjitpy_dl_device {
	int32_t device_type;
	int32_t device_id;
} kjitpy_dl_device;

typedef struct kjitpy_dl_dtype {
	uint8_t code;
	uint8_t bits;
	uint16_t lanes;
} kjitpy_dl_dtype;

typedef struct kjitpy_dl_tensor {
	void *data;
	kjitpy_dl_device device;
	int32_t ndim;
	kjitpy_dl_dtype dtype;
	int64_t *shape;
	int64_t *strides; /* in elements; NULL: compact row-major */
	uint64_t byte_offset;
} kjitpy_dl_tensor;

/* "dltensor" capsules */
typedef struct kjitpy_dl_managed {
	kjitpy_dl_tensor dl_tensor;
	void *manager_ctx;
	void (*deleter)(struct kjitpy_dl_managed *self);
} kjitpy_dl_managed;

/* "dltensor_versioned" capsules (DLPack 1.0) */
typedef struct kjitpy_dl_managed_versioned {
	struct {
		uint32_t major;
		uint32_t minor;
	} version;
	void *manager_ctx;
	void (*deleter)(struct kjitpy_dl_managed_versioned *self);
	uint64_t flags;
	kjitpy_dl_tensor dl_tensor;
} kjitpy_dl_managed_versioned;

#endif
