/*
 * vow_face.h: vow.h as the library itself sees it (the CVow module's header; C programs
 * include vow.h). Internal to Vow.
 *
 * Every function vow_X of vow.h and vow_testing.h is implemented under the name vowface_X
 * (the C face's @c functions, declared here with vow_X's type by vow_face_decls.h;
 * CVow's C files), and the public vow_X is a jump through the engine's table
 * (Sources/VowEntryPoints: in libvow.so and VowSwiftOnly, not in VowNIO or VowTesting): so
 * a Swift program that links the engine statically (VowNIO, VowTesting) beside the product
 * vow defines no vow_X of its own, and C's calls reach the one engine the process uses
 * (ARCHITECTURE.md, "One engine whatever the products"). Swift code of the library calls vowface_X (its own engine);
 * Swift tests may call vow_X (they link the entry points). Both generated files come from
 * scripts/generate-entry-points.sh.
 */
#ifndef VOW_FACE_H
#define VOW_FACE_H

#include "vow.h"
#include "vow_testing.h"
#include "vow_face_decls.h"
#include "vow_counted_handles.h"
#include "vow_engine_copies.h"
#include "vow_result_tokens.h"

#endif /* VOW_FACE_H */
