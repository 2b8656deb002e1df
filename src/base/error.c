/* error.c - per-thread error detail, status names, clocks. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"

static pthread_key_t err_key;
static pthread_once_t err_once = PTHREAD_ONCE_INIT;

static void err_key_create(void)
{
	(void)pthread_key_create(&err_key, free);
}

kjit_status kjit__error_take(kjit_status status, char *msg)
{
	pthread_once(&err_once, err_key_create);
	free(pthread_getspecific(err_key));
	(void)pthread_setspecific(err_key, msg);
	return status;
}

static char *vprintf_new(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *kjit__strdup_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vprintf_new(fmt, ap);
	va_end(ap);
	return s;
}

kjit_status kjit__error(kjit_status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vprintf_new(fmt, ap);
	va_end(ap);
	return kjit__error_take(status, s);
}

const char *kjit__error_msg(void)
{
	pthread_once(&err_once, err_key_create);
	const char *s = pthread_getspecific(err_key);
	return s ? s : "";
}

const char *kjit_last_error(void)
{
	return kjit__error_msg();
}

const char *kjit_status_str(kjit_status status)
{
	switch (status) {
	case KJIT_OK: return "KJIT_OK: success";
	case KJIT_ERR_INVALID_ARG: return "KJIT_ERR_INVALID_ARG: invalid argument";
	case KJIT_ERR_NOMEM: return "KJIT_ERR_NOMEM: out of memory";
	case KJIT_ERR_IO: return "KJIT_ERR_IO: file error";
	case KJIT_ERR_NO_GPU: return "KJIT_ERR_NO_GPU: no usable CUDA driver or device";
	case KJIT_ERR_CUDA: return "KJIT_ERR_CUDA: CUDA driver call failed";
	case KJIT_ERR_COMPILE: return "KJIT_ERR_COMPILE: kernel failed to compile";
	case KJIT_ERR_NVRTC: return "KJIT_ERR_NVRTC: NVRTC failed";
	case KJIT_ERR_DB: return "KJIT_ERR_DB: database error";
	case KJIT_ERR_NOT_FOUND: return "KJIT_ERR_NOT_FOUND: not found";
	case KJIT_ERR_LAUNCH: return "KJIT_ERR_LAUNCH: kernel launch failed";
	case KJIT_ERR_CORRUPT: return "KJIT_ERR_CORRUPT: stored data failed its checksum";
	case KJIT_ERR_LINK: return "KJIT_ERR_LINK: nvJitLink failed to link";
	}
	return "KJIT_ERR_?: unknown status code";
}

const char *kjit_version(void)
{
	return PACKAGE_VERSION;
}

uint64_t kjit__now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double kjit__wall_time(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
