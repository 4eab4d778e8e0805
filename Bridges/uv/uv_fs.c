/*
 * uv_fs.c: the libuv bridge's file requests (include/vow_uv.h): vow_uv_fs_open, read,
 * close, stat, fstat, and read_file (open, fstat, read to the end, close, one step at a
 * time). See uv_bridge.h.
 */
#include "uv_bridge.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void
free_pointer(void *p)
{
    free(p);
}

static vow_value *
stat_value(const uv_stat_t *statbuf)
{
    uv_stat_t *copy = malloc(sizeof *copy);
    if (copy == NULL) return NULL;
    *copy = *statbuf;
    return vow_value_pointer(copy, free_pointer);
}

/* Fulfils req's promise with v (released); a NULL v (memory ran out making it) rejects
   with UV_ENOMEM. False if the promise was settled already (cancelled). */
static bool
fulfil(vowuv_req *req, vow_value *v)
{
    if (v == NULL) {
        vowuv_reject(req, UV_ENOMEM);
        return false;
    }
    return vowbridge_fulfil(req->base.resolver, v);
}

/* Closes file now, on this thread (the rare path: a file opened for a cancelled promise). */
static void
close_now(uv_loop_t *loop, uv_file file)
{
    uv_fs_t close_req;
    uv_fs_close(loop, &close_req, file, NULL);
    uv_fs_req_cleanup(&close_req);
}

/* The callback of the single fs requests (open, read, close, stat, fstat). */
static void
on_fs(uv_fs_t *fs)
{
    vowuv_req *req = fs->data;
    ssize_t result = fs->result;
    if (result < 0) {
        vowuv_reject(req, (int)result);
    } else {
        switch (fs->fs_type) {
        case UV_FS_OPEN:
            if (!fulfil(req, vow_value_int(result))) close_now(req->loop, (uv_file)result);
            break;
        case UV_FS_READ:
            fulfil(req, vow_value_bytes(req->buf, (size_t)result));
            break;
        case UV_FS_STAT:
        case UV_FS_FSTAT:
            fulfil(req, stat_value(&fs->statbuf));
            break;
        default:
            fulfil(req, vow_value_null());
            break;
        }
    }
    uv_fs_req_cleanup(fs);
    vowbridge_req_finish(&req->base);
}

/* One fs request whose callback is on_fs: open (path, flags, mode), stat (path), fstat
   (file), close (file). */
static vow_promise *
single_fs(vow_dispatcher *d, const char *site_file, int site_line, uv_fs_type type, const char *path, uv_file file,
          int flags, int mode)
{
    static const char *const steps[] = {[UV_FS_OPEN] = "uv_fs_open", [UV_FS_STAT] = "uv_fs_stat",
                                        [UV_FS_FSTAT] = "uv_fs_fstat", [UV_FS_CLOSE] = "uv_fs_close"};
    char function[32];
    snprintf(function, sizeof function, "vow_%s", steps[type]); /* vow_uv_fs_open, ... */
    vow_promise *p;
    vowuv_req *req = path != NULL
        ? vowuv_req_new(d, &p, site_file, site_line, function, steps[type], "\"%s\"", path)
        : vowuv_req_new(d, &p, site_file, site_line, function, steps[type], "file %d", (int)file);
    if (req == NULL) return NULL;
    int rc;
    switch (type) {
    case UV_FS_OPEN: rc = uv_fs_open(req->loop, &req->u.fs, path, flags, mode, on_fs); break;
    case UV_FS_STAT: rc = uv_fs_stat(req->loop, &req->u.fs, path, on_fs); break;
    case UV_FS_FSTAT: rc = uv_fs_fstat(req->loop, &req->u.fs, file, on_fs); break;
    default:
        req->closing = true;
        rc = uv_fs_close(req->loop, &req->u.fs, file, on_fs);
        break;
    }
    return rc < 0 ? vowuv_refused(req, p, rc) : p;
}

vow_promise *
vow_uv_fs_open_site(const char *site_file, int site_line, vow_dispatcher *d, const char *path, int flags, int mode)
{
    return path != NULL ? single_fs(d, site_file, site_line, UV_FS_OPEN, path, -1, flags, mode) : NULL;
}

vow_promise *
vow_uv_fs_stat_site(const char *site_file, int site_line, vow_dispatcher *d, const char *path)
{
    return path != NULL ? single_fs(d, site_file, site_line, UV_FS_STAT, path, -1, 0, 0) : NULL;
}

vow_promise *
vow_uv_fs_fstat_site(const char *site_file, int site_line, vow_dispatcher *d, uv_file file)
{
    return single_fs(d, site_file, site_line, UV_FS_FSTAT, NULL, file, 0, 0);
}

vow_promise *
vow_uv_fs_close_site(const char *site_file, int site_line, vow_dispatcher *d, uv_file file)
{
    return single_fs(d, site_file, site_line, UV_FS_CLOSE, NULL, file, 0, 0);
}

/* fs_read reads at most this much at once from a file that is not a regular file (a pipe,
   a socket, a device), whose size says nothing of what one read returns. */
#define READ_CHUNK ((size_t)64 * 1024)

/* The fstat before a read (loop thread): the buffer is sized by what can be read, then the
   read starts (its callback is on_fs). */
static void
read_sized(uv_fs_t *fs)
{
    vowuv_req *req = fs->data;
    ssize_t result = fs->result;
    bool regular = result == 0 && S_ISREG(fs->statbuf.st_mode);
    uint64_t size = fs->statbuf.st_size;
    uv_fs_req_cleanup(fs);
    if (result < 0) {
        vowuv_reject(req, (int)result);
        vowbridge_req_finish(&req->base);
        return;
    }
    if (vow_resolver_is_used(req->base.resolver)) { /* cancelled meanwhile */
        vowbridge_req_finish(&req->base);
        return;
    }
    /* A regular file: what lies between the position and its end, as fstat saw it. */
    size_t cap = req->max < READ_CHUNK ? req->max : READ_CHUNK;
    if (regular) {
        int64_t start = req->offset >= 0 ? req->offset : (int64_t)lseek(req->file, 0, SEEK_CUR);
        if (start >= 0) {
            uint64_t left = size > (uint64_t)start ? size - (uint64_t)start : 0;
            cap = left < req->max ? (size_t)left : req->max;
        }
    }
    if (cap == 0) {
        fulfil(req, vow_value_bytes(NULL, 0));
        vowbridge_req_finish(&req->base);
        return;
    }
    req->step = "uv_fs_read";
    req->buf = malloc(cap);
    if (req->buf == NULL) {
        vowuv_reject(req, UV_ENOMEM);
        vowbridge_req_finish(&req->base);
        return;
    }
    uv_buf_t buf = uv_buf_init(req->buf, (unsigned int)(cap > UINT32_MAX ? UINT32_MAX : cap));
    int rc = uv_fs_read(req->loop, &req->u.fs, req->file, &buf, 1, req->offset, on_fs);
    if (rc < 0) {
        vowuv_reject(req, rc);
        vowbridge_req_finish(&req->base);
    }
}

vow_promise *
vow_uv_fs_read_site(const char *site_file, int site_line, vow_dispatcher *d, uv_file file, size_t length, int64_t offset)
{
    vow_promise *p;
    vowuv_req *req = vowuv_req_new(d, &p, site_file, site_line, "vow_uv_fs_read", "uv_fs_fstat", "file %d",
                                     (int)file);
    if (req == NULL) return NULL;
    if (offset < -1) {
        vow_error *e = vowbridge_error("uv", UV_EINVAL,
                                        "vow_uv_fs_read(file %d): offset %lld is not a position (-1 reads at the "
                                        "file's current position)", (int)file, (long long)offset);
        return vowbridge_req_refused(&req->base, p, e);
    }
    req->file = file;
    req->offset = offset;
    req->max = length;
    int rc = uv_fs_fstat(req->loop, &req->u.fs, file, read_sized);
    return rc < 0 ? vowuv_refused(req, p, rc) : p;
}

/* ---- read_file: open, fstat, read to the end, close, one step at a time ----------------- */

static void read_file_step(uv_fs_t *fs);

/* Records the first failure (status < 0) and the step it came from. */
static void
read_file_failed(vowuv_req *req, const char *step, int status)
{
    if (status >= 0 || req->status < 0) return;
    req->status = status;
    req->step = step;
}

/* Starts closing the file (or settles at once if none is open). */
static void
read_file_close(vowuv_req *req)
{
    if (req->file >= 0) {
        req->closing = true;
        int rc = uv_fs_close(req->loop, &req->u.fs, req->file, read_file_step);
        req->file = -1;
        if (rc == 0) return;
        read_file_failed(req, "uv_fs_close", rc);
    }
    /* Nothing open: settle now. */
    if (req->status < 0) {
        vowuv_reject(req, req->status);
    } else {
        fulfil(req, vow_value_bytes(req->buf, req->len));
    }
    vowbridge_req_finish(&req->base);
}

/* Reads the next piece into the buffer, growing it (up to max_bytes + 1, to see the end). */
static void
read_file_next(vowuv_req *req)
{
    if (req->len == req->cap) {
        if (req->cap > req->max) {
            read_file_failed(req, "vow_uv_fs_read_file", UV_EFBIG);
            read_file_close(req);
            return;
        }
        size_t cap = req->cap * 2 > req->max + 1 ? req->max + 1 : req->cap * 2;
        char *grown = realloc(req->buf, cap);
        if (grown == NULL) {
            read_file_failed(req, "uv_fs_read", UV_ENOMEM);
            read_file_close(req);
            return;
        }
        req->buf = grown;
        req->cap = cap;
    }
    size_t room = req->cap - req->len;
    uv_buf_t buf = uv_buf_init(req->buf + req->len, (unsigned int)(room > UINT32_MAX ? UINT32_MAX : room));
    int rc = uv_fs_read(req->loop, &req->u.fs, req->file, &buf, 1, (int64_t)req->len, read_file_step);
    if (rc < 0) {
        read_file_failed(req, "uv_fs_read", rc);
        read_file_close(req);
    }
}

static const char *
fs_step_name(uv_fs_type type)
{
    switch (type) {
    case UV_FS_OPEN: return "uv_fs_open";
    case UV_FS_FSTAT: return "uv_fs_fstat";
    case UV_FS_READ: return "uv_fs_read";
    default: return "uv_fs_close";
    }
}

static void
read_file_step(uv_fs_t *fs)
{
    vowuv_req *req = fs->data;
    ssize_t result = fs->result;
    uv_fs_type type = fs->fs_type;
    uint64_t size = fs->statbuf.st_size;
    uv_fs_req_cleanup(fs);
    if (result < 0) read_file_failed(req, fs_step_name(type), (int)result);
    if (type == UV_FS_CLOSE) {
        read_file_close(req); /* the file is closed: settles */
        return;
    }
    if (type == UV_FS_OPEN && result >= 0) req->file = (uv_file)result;
    /* A failure, or the promise was cancelled meanwhile (a step already running finished):
       close the file, then settle. */
    if (req->status < 0 || vow_resolver_is_used(req->base.resolver)) {
        read_file_close(req);
        return;
    }
    int rc = 0;
    switch (type) {
    case UV_FS_OPEN:
        rc = uv_fs_fstat(req->loop, &req->u.fs, req->file, read_file_step);
        break;
    case UV_FS_FSTAT:
        if (size > req->max) {
            read_file_failed(req, "vow_uv_fs_read_file", UV_EFBIG);
            read_file_close(req);
            return;
        }
        /* The size is a hint (a file may grow, /proc says 0): one byte more shows the end. */
        req->cap = (size > 0 ? (size_t)size : 4096) + 1;
        if (req->cap > req->max + 1) req->cap = req->max + 1;
        req->buf = malloc(req->cap);
        if (req->buf == NULL) {
            read_file_failed(req, "uv_fs_read", UV_ENOMEM);
            read_file_close(req);
            return;
        }
        read_file_next(req);
        return;
    case UV_FS_READ:
        if (result == 0) {
            read_file_close(req); /* the end of the file */
            return;
        }
        req->len += (size_t)result;
        read_file_next(req);
        return;
    default:
        return;
    }
    if (rc < 0) {
        read_file_failed(req, fs_step_name(type == UV_FS_OPEN ? UV_FS_FSTAT : type), rc);
        read_file_close(req);
    }
}

vow_promise *
vow_uv_fs_read_file_site(const char *site_file, int site_line, vow_dispatcher *d, const char *path, size_t max_bytes)
{
    if (path == NULL) return NULL;
    vow_promise *p;
    vowuv_req *req = vowuv_req_new(d, &p, site_file, site_line, "vow_uv_fs_read_file", "uv_fs_open", "\"%s\"", path);
    if (req == NULL) return NULL;
    req->max = max_bytes < SIZE_MAX ? max_bytes : SIZE_MAX - 1; /* the buffer holds max + 1 */
    int rc = uv_fs_open(req->loop, &req->u.fs, path, O_RDONLY, 0, read_file_step);
    return rc < 0 ? vowuv_refused(req, p, rc) : p;
}
