/*
 * vow_engine_copies.h: one engine per process. Internal to Vow, not part of vow.h
 * (it is in the CVow module for the Swift face; C programs never include it).
 *
 * Promises, values and resolvers are objects of one copy of the engine. A process can
 * still end up with two copies: libvow.so for the C code, and a Swift library or program
 * that linked a copy of its own (the SwiftPM product VowSwiftOnly, or the old Vow). Both
 * write the same tags into their objects, so a handle check by tag alone would take the
 * other copy's objects for its own and misread them.
 *
 * Two copies can also be one: a Swift program that links the engine statically (the
 * SwiftPM products VowNIO, VowTesting, VowSwiftOnly) beside the product vow (libvow.so).
 * libvow.so's C entry points jump through the engine's table as the dynamic linker
 * resolved it, the program's, and other images' Swift code binds to the program's Swift
 * symbols, so the copy inside libvow.so is dormant: nothing can reach it.
 *
 * So every image that holds the engine carries one ELF note, `vow_engine_this_copy`
 * below, in a writable section. When an image loads, its constructor
 * (vow_engine_copies.c) decides its copy's role (in use or dormant) and walks the notes
 * of every object loaded in the process (dl_iterate_phdr: shared libraries and the
 * program alike, exported symbols or not). Finding two copies in use, it marks their
 * notes, so that each copy knows, and writes one line to standard error that names both
 * files and the fix. The handle checks of the
 * C face and AnyPromise(unsafeHandle:) read their own copy's mark
 * (vowengine_other_copies(): one load) and only when it is set also check that the
 * object behind a handle is an object of this copy, refusing the others with a misuse
 * line.
 */
#ifndef VOW_ENGINE_COPIES_H
#define VOW_ENGINE_COPIES_H

#include <stdbool.h>
#include <stdint.h>

/* The note: an ELF note header (name size, descriptor size, type), its name "Vow" and
   its 8-byte descriptor. Laid out as the ELF gABI lays out a note, with 4-byte
   alignment, so that dl_iterate_phdr finds it in the image's PT_NOTE segment. */
struct vow_engine_note {
    uint32_t name_size;     /* 4: "Vow" and its NUL */
    uint32_t desc_size;     /* 12: layout, other_copies, role (layout 1: 8, no role) */
    uint32_t type;          /* VOW_ENGINE_NOTE_TYPE */
    char name[4];           /* "Vow" */
    uint32_t layout;        /* VOW_ENGINE_NOTE_LAYOUT: what the descriptor holds */
    uint32_t other_copies;  /* 0; 1 once another copy in use is known (any copy writes it) */
    uint32_t role;          /* layout 2: VOW_ENGINE_ROLE_*, written by the copy's constructor */
};

/* Copies of different releases find each other by these: keep the note's name, type and
   the fields of layout 1 as they are (a new field gets a new layout number and a larger
   desc_size, after these). Layout 2 adds `role`. */
#define VOW_ENGINE_NOTE_TYPE 0x31776f76u   /* "vow1" */
#define VOW_ENGINE_NOTE_LAYOUT 2u

/* A copy's role, decided when its image loads (vow_engine_copies.c):
   IN_USE   its objects can reach code of the process: it is the copy C's entry points
            reach (its image is the first that defines the engine's table,
            VowEngineEntries_D), or its image has code of its own that calls it (every
            image but libvow.so: a program, a Swift library that linked the engine
            statically), or the Swift code of another image binds to it (imports a Swift
            symbol of Vow's modules that resolves into its image);
   DORMANT  nothing can reach it: libvow.so (known by its mark, VowLibraryOnly) when the
            table C's entry points use and every Swift import of the other images go to
            another image's copy (SwiftPM's static products beside the product vow: the
            program is first in the search order and exports what libvow.so defines).
   0: not decided yet (the image's constructor has not run), or a copy of layout 1.
   A dormant copy is not looked at again: a Swift component loaded later with dlopen that
   binds to it is not seen (ARCHITECTURE.md, "One engine whatever the products", says when
   that can happen). */
#define VOW_ENGINE_ROLE_IN_USE 1u
#define VOW_ENGINE_ROLE_DORMANT 2u

/* This copy's note (hidden: each image has its own, never interposed). */
extern struct vow_engine_note vow_engine_this_copy __attribute__((visibility("hidden")));

/* Whether another copy of the engine is loaded in this process: the one load the
   handle checks pay. Relaxed: the mark is written by a constructor, before the other
   copy can hand out any handle. */
static inline bool vowengine_other_copies(void) {
    return __atomic_load_n(&vow_engine_this_copy.other_copies, __ATOMIC_RELAXED) != 0;
}

/* The file of the loaded image that holds `address` (a class's metadata, say), or,
   for NULL, of this copy of the engine; "the program" for the main executable when its
   path is unknown. Never NULL; the string lives as long as the image. For misuse lines. */
const char *vowengine_image_path(const void *address) __attribute__((visibility("hidden")));

#endif /* VOW_ENGINE_COPIES_H */
