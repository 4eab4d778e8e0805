/* Compiled by check_header.sh: vow.h must build as strict C99 with zero warnings. */
#include "vow.h"

/* VOW_VERSION_NUMBER is an integer constant expression that matches its parts. */
typedef char vow_check_version_number[
    (VOW_VERSION_NUMBER == VOW_VERSION_MAJOR * 10000 + VOW_VERSION_MINOR * 100 + VOW_VERSION_PATCH) ? 1 : -1];
typedef char vow_check_ffi_limits[(VOW_FFI_MAX_SIGNATURE == 256 && VOW_FFI_MAX_PARAMETERS == 32) ? 1 : -1];
typedef char vow_check_enums[(VOW_KIND_INVALID < 0 && VOW_KIND_NULL == 0 && VOW_KIND_SWIFT == 11 &&
                              VOW_STATE_INVALID < 0 && VOW_PENDING == 0 && VOW_REJECTED == 2 &&
                              VOW_ERROR_CANCELLED == 1 && VOW_ERROR_DEADLOCK == 8 &&
                              VOW_THEN_THREW == 2 && VOW_ENOMEM == -5 && VOW_CATCH_ALL_ERRORS == 1) ? 1 : -1];

static int get_then(void *object, void **method, vow_error **error)
{
    (void)object;
    (void)error;
    *method = 0;
    return VOW_THEN_NONE;
}

static int call_then(void *object, void *method, vow_resolver *resolver, vow_error **error)
{
    (void)object;
    (void)method;
    (void)error;
    return vow_resolver_resolve(resolver, vow_value_null());
}

static const vow_thenable_class thenable_class = { get_then, call_then, 0 };

static void on_value(void *ctx, const vow_value *value, vow_result *out)
{
    (void)ctx;
    vow_result_return(out, value);
}

static void submit(void *ctx, vow_job run, void *job)
{
    (void)ctx;
    run(job);
}

int header_c_entry(void);
int header_c_entry(void)
{
    vow_promise *(*then_fn)(vow_promise *, vow_on_value, vow_on_error, void *, void (*)(void *)) = &vow_then;
    vow_fnptr fn = (vow_fnptr)&vow_version_number;
    void (*submit_fn)(void *, vow_job, void *) = submit;
    enum vow_error_codes code = VOW_ERROR_TIMEOUT;
    enum vow_then_lookup lookup = VOW_THEN_FOUND;
    vow_kind kind = VOW_KIND_THENABLE;
    vow_state state = VOW_FULFILLED;
    vow_status status = VOW_OK;
    vow_policy policy = VOW_CATCH_ALL_EXCEPT_CANCELLATION;
    vow_on_value cb = on_value;
    (void)then_fn;
    (void)fn;
    (void)submit_fn;
    (void)cb;
    (void)&thenable_class;
    return (int)code + (int)lookup + (int)kind + (int)state + (int)status + (int)policy;
}
