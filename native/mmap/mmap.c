/*
 * Read-only memory maps of segment files, for the shard engine
 * (docs/decisions/003). Node has no mmap of its own; this addon exposes the
 * three calls the engine needs through N-API, with an explicit unmap: a map
 * released only by the garbage collector keeps deleted files' disk space and
 * pages for as long as the collector waits (Lucene's "unmap hack" exists for
 * the same reason).
 *
 *   map(path)          -> ArrayBuffer over the whole file (PROT_READ, MAP_SHARED)
 *   unmap(buffer)      -> munmap now and detach the buffer (later reads see length 0)
 *   advise(buffer, n)  -> madvise: 0 normal, 1 random, 2 sequential, 3 willneed, 4 dontneed
 *   resident(buffer)   -> bytes of the map in memory now (mincore)
 *   trim()             -> glibc's malloc_trim(0): free heap memory of every malloc arena back to the
 *                         system; false where the C library has none (docs/performance.md, "after a load")
 *
 * Loading it fixes glibc's mmap threshold (below, keep_large_allocations_apart).
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

typedef struct {
  void *addr;
  size_t length;
  int unmapped;
} Mapping;

static napi_value throw_errno(napi_env env, const char *what, const char *path) {
  char message[4200];
  snprintf(message, sizeof message, "%s [%s]: %s", what, path, strerror(errno));
  napi_throw_error(env, NULL, message);
  return NULL;
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)data;
  Mapping *m = (Mapping *)hint;
  if (!m->unmapped && m->length > 0) munmap(m->addr, m->length);
  free(m);
}

static Mapping *mapping_of(napi_env env, napi_value buffer) {
  Mapping *m = NULL;
  if (napi_unwrap(env, buffer, (void **)&m) != napi_ok) return NULL;
  return m;
}

static napi_value map_file(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  char path[4096];
  size_t len = 0;
  if (argc < 1 || napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, "map(path): path must be a string");
    return NULL;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return throw_errno(env, "cannot open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return throw_errno(env, "cannot stat", path);
  }
  size_t length = (size_t)st.st_size;
  void *addr = NULL;
  if (length > 0) {
    addr = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
    if (addr == MAP_FAILED) {
      close(fd);
      return throw_errno(env, "cannot map", path);
    }
  }
  close(fd);
  Mapping *m = malloc(sizeof *m);
  m->addr = addr;
  m->length = length;
  m->unmapped = 0;
  napi_value result;
  napi_status status;
  if (length > 0) {
    status = napi_create_external_arraybuffer(env, addr, length, finalize, m, &result);
  } else {
    void *unused;
    status = napi_create_arraybuffer(env, 0, &unused, &result);
    free(m);
    return status == napi_ok ? result : NULL;
  }
  if (status != napi_ok) {
    munmap(addr, length);
    free(m);
    napi_throw_error(env, NULL, "cannot create an ArrayBuffer over the map");
    return NULL;
  }
  // The mapping record rides on the buffer so unmap/advise can find it; the finalizer above owns it.
  napi_wrap(env, result, m, NULL, NULL, NULL);
  return result;
}

static napi_value unmap_file(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1) return NULL;
  Mapping *m = mapping_of(env, argv[0]);
  if (m == NULL || m->unmapped) return NULL;
  napi_remove_wrap(env, argv[0], NULL);
  munmap(m->addr, m->length);
  m->unmapped = 1;
  napi_detach_arraybuffer(env, argv[0]);
  return NULL;
}

static napi_value advise_file(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t advice = 0;
  if (argc < 2 || napi_get_value_int32(env, argv[1], &advice) != napi_ok) return NULL;
  Mapping *m = mapping_of(env, argv[0]);
  if (m == NULL || m->unmapped || m->length == 0) return NULL;
  static const int advices[] = {MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED};
  if (advice < 0 || advice > 4) return NULL;
  madvise(m->addr, m->length, advices[advice]);
  return NULL;
}

static napi_value resident_bytes(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  double bytes = 0;
  Mapping *m = argc < 1 ? NULL : mapping_of(env, argv[0]);
  if (m != NULL && !m->unmapped && m->length > 0) {
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = (m->length + (size_t)page - 1) / (size_t)page;
    unsigned char *vec = malloc(pages);
    if (vec != NULL && mincore(m->addr, m->length, vec) == 0) {
      for (size_t i = 0; i < pages; i++) if (vec[i] & 1) bytes += (double)page;
    }
    free(vec);
  }
  napi_value result;
  napi_create_double(env, bytes, &result);
  return result;
}

/*
 * Native memory the threads freed stays in glibc's arenas (one per thread
 * that allocates, up to 8 per core) until malloc_trim: after a long bulk load
 * about 200 MB of the node's anonymous memory was free chunks of them.
 */
static napi_value trim_heap(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#if defined(__GLIBC__)
  malloc_trim(0);
  napi_get_boolean(env, true, &result);
#else
  napi_get_boolean(env, false, &result);
#endif
  return result;
}

/*
 * glibc serves an allocation of 128 KiB or more with a map of its own, given
 * back on free, until such a block is freed: then it raises the threshold to
 * that block's size (up to 32 MiB), and from there on blocks of megabytes
 * (typed arrays' buffers: counts per distinct plate, scratch arrays sized to
 * a segment) come from the threads' arenas, whose free space outlives them in
 * the middle of the heaps. Fixing the threshold at 1 MiB keeps those apart
 * (at 128 KiB, the bulk path's buffers of a few hundred KB were mapped and
 * unmapped one by one: 5-15 % more CPU a document); fixing it also fixes the
 * trim threshold, set here to 32 MiB (glibc's adjustment sets twice the largest block freed), so freeing
 * does not trim arena tops at every turn (native-heap.ts trims after loads and
 * aggregations). At 20M docs the node's anonymous memory after the seed
 * queries went from 429 to ~300-360 MiB (docs/performance.md, stop 32).
 * Process-wide and idempotent: every thread that loads the addon sets the same values.
 */
static void keep_large_allocations_apart(void) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 32 * 1024 * 1024);
#endif
}

NAPI_MODULE_INIT() {
  keep_large_allocations_apart();
  napi_property_descriptor props[] = {
      {"map", NULL, map_file, NULL, NULL, NULL, napi_default, NULL},
      {"unmap", NULL, unmap_file, NULL, NULL, NULL, napi_default, NULL},
      {"advise", NULL, advise_file, NULL, NULL, NULL, napi_default, NULL},
      {"resident", NULL, resident_bytes, NULL, NULL, NULL, napi_default, NULL},
      {"trim", NULL, trim_heap, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}
