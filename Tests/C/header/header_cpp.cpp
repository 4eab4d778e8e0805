// Compiled by check_header.sh: vow.h must build as C++17 with zero warnings.
#include "vow.h"

#include <type_traits>

static_assert(VOW_VERSION_NUMBER == VOW_VERSION_MAJOR * 10000 + VOW_VERSION_MINOR * 100 + VOW_VERSION_PATCH,
              "VOW_VERSION_NUMBER matches its parts");
static_assert(VOW_FFI_MAX_SIGNATURE == 256 && VOW_FFI_MAX_PARAMETERS == 32, "libffi limits");
static_assert(VOW_KIND_INVALID < 0 && VOW_STATE_INVALID < 0, "invalid members are negative");
static_assert(std::is_same<decltype(&vow_then),
                           vow_promise *(*)(vow_promise *, vow_on_value, vow_on_error, void *,
                                            void (*)(void *))>::value,
              "vow_then's type");
static_assert(std::is_same<decltype(&vow_value_retain), vow_value *(*)(const vow_value *)>::value,
              "vow_value_retain takes const and returns non-const");
static_assert(std::is_same<decltype(&vow_when), vow_promise *(*)(vow_promise *const *, size_t)>::value,
              "vow_when's type");
static_assert(std::is_standard_layout<vow_thenable_class>::value, "plain C struct");

namespace {

int get_then(void *, void **method, vow_error **)
{
    *method = nullptr;
    return VOW_THEN_NONE;
}

int call_then(void *, void *, vow_resolver *resolver, vow_error **)
{
    return vow_resolver_resolve(resolver, vow_value_null());
}

const vow_thenable_class thenable_class = { get_then, call_then, nullptr };

} // namespace

extern "C" int header_cpp_entry();
extern "C" int header_cpp_entry()
{
    auto then_fn = &vow_then;
    vow_fnptr fn = reinterpret_cast<vow_fnptr>(&vow_version_number);
    enum vow_error_codes code = VOW_ERROR_TIMEOUT;
    vow_kind kind = VOW_KIND_THENABLE;
    (void)then_fn;
    (void)fn;
    (void)&thenable_class;
    return static_cast<int>(code) + static_cast<int>(kind);
}
