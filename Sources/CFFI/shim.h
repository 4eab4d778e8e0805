#ifndef VOW_CFFI_SHIM_H
#define VOW_CFFI_SHIM_H
#include <ffi.h>

/* Swift 6 rejects libffi's global type descriptors (ffi_type_sint64 and friends) as
   not concurrency-safe; these accessors hand out their (immutable) addresses. */
static inline ffi_type *vowffi_type_void(void) { return &ffi_type_void; }
static inline ffi_type *vowffi_type_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *vowffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *vowffi_type_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *vowffi_type_double(void) { return &ffi_type_double; }
static inline ffi_type *vowffi_type_float(void) { return &ffi_type_float; }
static inline ffi_type *vowffi_type_pointer(void) { return &ffi_type_pointer; }
static inline ffi_abi vowffi_default_abi(void) { return FFI_DEFAULT_ABI; }

#endif
