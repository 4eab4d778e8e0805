/* One engine per process: finds the other copies of the Vow engine loaded in this
   process when this one loads (see vow_engine_copies.h for the why). */
#define _GNU_SOURCE
#include "vow_engine_copies.h"
#include "vow_engine_entries.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* This copy's note. The section name starts with ".note", so the compiler gives it the
   ELF type SHT_NOTE and the linker a PT_NOTE segment (gold, lld and GNU ld alike, shared
   libraries and programs alike, --gc-sections or not: the constructor below uses it).
   Not const: other copies write `other_copies`. */
__attribute__((section(".note.vow.engine"), aligned(4), used, visibility("hidden")))
struct vow_engine_note vow_engine_this_copy = {
    .name_size = 4,
    .desc_size = 12,
    .type = VOW_ENGINE_NOTE_TYPE,
    .name = "Vow",
    .layout = VOW_ENGINE_NOTE_LAYOUT,
    .other_copies = 0,
    .role = 0,
};

/* The engine's table of C entry points (engine_entries.c; its name, VOW_ENGINE_ENTRIES,
   carries a digest of its layout): as the dynamic linker resolved it for this image
   (through the GOT: the first image of the process that defines it), and this image's
   own. Declared here, in another file than the definition, so that the compiler cannot
   bind the first to the definition. */
extern const void *const VOW_ENGINE_ENTRIES[];
extern const void *const VowEngineOwnEntries[] __attribute__((visibility("hidden")));

/* The mark of libvow.so itself (the product vow: the engine and the C entry points, no
   code of its own that calls the engine): 0 here, 1 in Sources/VowLibrary/library_mark.c,
   whose strong definition wins over this weak one in the one link that holds both. A weak
   *definition*, read as a value: an undefined weak reference (`&mark != NULL`) does not
   work here, because gold gives such a hidden reference a GOT slot and glibc binds a
   hidden symbol to the image itself, so the slot holds the image's load address, never
   NULL; every Swift library with a copy of its own then took itself for libvow.so and
   went dormant (a second engine nobody was told about). Volatile: the compiler must not
   fold this definition's 0 into the test. */
__attribute__((weak, visibility("hidden"))) const volatile unsigned char VowLibraryOnly = 0;

/* The main program's path, for messages (its dl_iterate_phdr name is ""); read once. */
static char program_path_buffer[512];

static void read_program_path(void) {
    ssize_t n = readlink("/proc/self/exe", program_path_buffer, sizeof program_path_buffer - 1);
    program_path_buffer[n > 0 ? n : 0] = '\0';
}

static const char *program_path(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_program_path);
    return program_path_buffer[0] != '\0' ? program_path_buffer : "the program";
}

const char *vowengine_image_path(const void *address) {
    Dl_info info;
    struct link_map *image = NULL;
    if (address == NULL) address = &vow_engine_this_copy;
    if (dladdr1(address, &info, (void **)&image, RTLD_DL_LINKMAP) == 0 || info.dli_fname == NULL) {
        return program_path();
    }
    /* glibc names the main program after argv[0]; its full path says more. */
    if (image == NULL || image->l_name == NULL || image->l_name[0] == '\0' || info.dli_fname[0] == '\0') {
        return program_path();
    }
    return info.dli_fname;
}

/* Whether [address, address + size) lies in a writable PT_LOAD segment of `image` and
   outside its PT_GNU_RELRO range (read-only once relocated): where another copy's
   note can be written. */
static bool writable(const struct dl_phdr_info *image, uintptr_t address, size_t size) {
    bool in_writable_load = false;
    for (size_t i = 0; i < image->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &image->dlpi_phdr[i];
        uintptr_t start = image->dlpi_addr + segment->p_vaddr;
        bool inside = address >= start && address + size <= start + segment->p_memsz;
        bool overlaps = address < start + segment->p_memsz && address + size > start;
        if (segment->p_type == PT_LOAD && (segment->p_flags & PF_W) && inside) in_writable_load = true;
        if (segment->p_type == PT_GNU_RELRO && overlaps) return false;
    }
    return in_writable_load;
}

/* What the walk found. */
struct copies {
    const char *this_path;      /* the file of this copy */
    const char *first_other;    /* the file of the first other copy in use */
    int others;                 /* how many other copies in use */
    bool reported;              /* a copy in use already wrote the line */
};

static const char *image_name(const struct dl_phdr_info *image) {
    return image->dlpi_name != NULL && image->dlpi_name[0] != '\0' ? image->dlpi_name : program_path();
}

/* dl_iterate_phdr's callback: looks for engine notes in one loaded image and marks the
   other copies' notes. */
static int visit(struct dl_phdr_info *image, size_t size, void *data) {
    (void)size;
    struct copies *found = data;
    for (size_t i = 0; i < image->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &image->dlpi_phdr[i];
        if (segment->p_type != PT_NOTE) continue;
        uintptr_t align = segment->p_align == 8 ? 8 : 4;
        uintptr_t at = image->dlpi_addr + segment->p_vaddr;
        uintptr_t end = at + segment->p_memsz;
        while (at + 12 <= end) {
            const uint32_t *header = (const uint32_t *)at;
            uintptr_t name = at + 12;
            uintptr_t desc = name + ((header[0] + align - 1) & ~(align - 1));
            uintptr_t next = desc + ((header[1] + align - 1) & ~(align - 1));
            if (next > end || next <= at) break;
            struct vow_engine_note *note = (struct vow_engine_note *)at;
            if (note->type == VOW_ENGINE_NOTE_TYPE && note->name_size == 4 && note->desc_size >= 8
                && memcmp(note->name, "Vow", 4) == 0 && note->layout >= 1) {
                /* Layout 1 (an older release) has no role: in use. Role 0 of layout 2: its
                   constructor has not run yet; it counts the others when it does. */
                uint32_t role = note->layout >= 2 && note->desc_size >= 12
                    ? __atomic_load_n(&note->role, __ATOMIC_ACQUIRE) : VOW_ENGINE_ROLE_IN_USE;
                if (note == &vow_engine_this_copy) {
                    found->this_path = image_name(image);
                } else if (role == VOW_ENGINE_ROLE_IN_USE) {
                    found->others += 1;
                    if (found->first_other == NULL) found->first_other = image_name(image);
                    if (__atomic_load_n(&note->other_copies, __ATOMIC_ACQUIRE) != 0) found->reported = true;
                    if (writable(image, at, sizeof *note)) {
                        __atomic_store_n(&note->other_copies, 1u, __ATOMIC_RELEASE);
                    }
                }
            }
            at = next;
        }
    }
    return 0;
}

/* Whether `address` lies in one of `image`'s PT_LOAD segments. */
static bool image_holds(const struct dl_phdr_info *image, uintptr_t address) {
    for (size_t i = 0; i < image->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &image->dlpi_phdr[i];
        uintptr_t start = image->dlpi_addr + segment->p_vaddr;
        if (segment->p_type == PT_LOAD && address >= start && address - start < segment->p_memsz) return true;
    }
    return false;
}

/* The loaded images, for the search of Swift code that uses this copy (copied out of
   dl_iterate_phdr's callback: the search calls dlsym, which takes the dynamic linker's
   other lock, so it runs after the walk). */
struct images {
    struct dl_phdr_info *list;
    size_t count;
    size_t capacity;
};

static int collect(struct dl_phdr_info *image, size_t size, void *data) {
    (void)size;
    struct images *found = data;
    if (found->count == found->capacity) {
        size_t capacity = found->capacity == 0 ? 64 : found->capacity * 2;
        struct dl_phdr_info *list = realloc(found->list, capacity * sizeof *list);
        if (list == NULL) return 1;
        found->list = list;
        found->capacity = capacity;
    }
    found->list[found->count++] = *image;
    return 0;
}

/* An address of `image`'s dynamic section: the dynamic linker relocates the pointers of a
   writable one in place (glibc), not those of a read-only one. */
static uintptr_t dynamic_address(const struct dl_phdr_info *image, ElfW(Addr) pointer) {
    return pointer < image->dlpi_addr ? image->dlpi_addr + pointer : pointer;
}

/* The first Swift symbol of Vow's modules (a mangled name, `$s`, that names Vow, VowEngine
   or VowTestLoop) that `image` imports and that the dynamic linker binds to `self` (this
   image: dlsym from here searches the process's global scope, as the import's own lookup
   does, the program first); NULL if none. Reads the image's relocations (the only places
   an imported symbol is used from) and asks dlsym for each such symbol once it is seen. */
static const char *swift_import_bound_to(const struct dl_phdr_info *image, const struct dl_phdr_info *self) {
    const ElfW(Dyn) *dynamic = NULL;
    for (size_t i = 0; i < image->dlpi_phnum; i++) {
        if (image->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            dynamic = (const ElfW(Dyn) *)(image->dlpi_addr + image->dlpi_phdr[i].p_vaddr);
        }
    }
    if (dynamic == NULL) return NULL;
    const ElfW(Sym) *symbols = NULL;
    const char *names = NULL;
    const ElfW(Rela) *tables[2] = { NULL, NULL };
    size_t sizes[2] = { 0, 0 };
    bool plt_rela = true;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        switch (entry->d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)dynamic_address(image, entry->d_un.d_ptr); break;
        case DT_STRTAB: names = (const char *)dynamic_address(image, entry->d_un.d_ptr); break;
        case DT_RELA: tables[0] = (const ElfW(Rela) *)dynamic_address(image, entry->d_un.d_ptr); break;
        case DT_RELASZ: sizes[0] = entry->d_un.d_val; break;
        case DT_JMPREL: tables[1] = (const ElfW(Rela) *)dynamic_address(image, entry->d_un.d_ptr); break;
        case DT_PLTRELSZ: sizes[1] = entry->d_un.d_val; break;
        case DT_PLTREL: plt_rela = entry->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    if (symbols == NULL || names == NULL) return NULL;
    if (!plt_rela) tables[1] = NULL;
    for (int t = 0; t < 2; t++) {
        if (tables[t] == NULL) continue;
        for (size_t r = 0; r < sizes[t] / sizeof(ElfW(Rela)); r++) {
            size_t index = ELF64_R_SYM(tables[t][r].r_info);
            if (index == 0 || symbols[index].st_shndx != SHN_UNDEF) continue;
            const char *name = names + symbols[index].st_name;
            if (name[0] != '$' || name[1] != 's' || strstr(name, "Vow") == NULL) continue;
            void *bound = dlsym(RTLD_DEFAULT, name);
            if (bound != NULL && image_holds(self, (uintptr_t)bound)) return name;
        }
    }
    return NULL;
}

/* Whether the Swift code of another loaded image uses this copy: it imports a Swift symbol
   of Vow's modules that binds here. Writes that image's name to `user`. */
static bool swift_code_uses_this_copy(const char **user) {
    struct images found = { NULL, 0, 0 };
    dl_iterate_phdr(collect, &found);
    const struct dl_phdr_info *self = NULL;
    for (size_t i = 0; i < found.count; i++) {
        if (image_holds(&found.list[i], (uintptr_t)&vow_engine_this_copy)) self = &found.list[i];
    }
    bool used = false;
    for (size_t i = 0; self != NULL && i < found.count && !used; i++) {
        if (&found.list[i] == self) continue;
        if (swift_import_bound_to(&found.list[i], self) != NULL) {
            *user = image_name(&found.list[i]);
            used = true;
        }
    }
    free(found.list);
    return used;
}

/* This copy's role (see vow_engine_copies.h). In use when its objects can reach code of the
   process: C's entry points reach it (its image defines the table the dynamic linker hands
   out), or its image has code of its own that calls it (every image but libvow.so), or the
   Swift code of another image binds to it (a Swift component built on libvow.so, where the
   program's copy does not export what the component imports). Dormant otherwise: libvow.so
   when C's entry points and every import go to another image's copy. `user` names the
   image of the last case. */
static uint32_t this_copy_role(const char **user) {
    if ((const void *)VOW_ENGINE_ENTRIES == (const void *)VowEngineOwnEntries) return VOW_ENGINE_ROLE_IN_USE;
    if (VowLibraryOnly == 0) return VOW_ENGINE_ROLE_IN_USE;
    if (swift_code_uses_this_copy(user)) return VOW_ENGINE_ROLE_IN_USE;
    return VOW_ENGINE_ROLE_DORMANT;
}

/* Runs when this image loads (program start, or dlopen). Every image of the process is
   mapped by then, and the constructors of the images a program needs run before the
   program's, so the last copy to decide its role sees every other copy's; a copy loaded
   later with dlopen sees the earlier ones. Two copies in use: the copy in use that finds
   it first writes the line and marks both, so the process gets one line whatever the
   order. A dormant copy says nothing and checks nothing (it serves no handle). */
__attribute__((constructor))
static void vowengine_find_other_copies(void) {
    const char *user = NULL;
    uint32_t role = this_copy_role(&user);
    __atomic_store_n(&vow_engine_this_copy.role, role, __ATOMIC_RELEASE);
    if (role != VOW_ENGINE_ROLE_IN_USE) return;
    struct copies found = { NULL, NULL, 0, false };
    dl_iterate_phdr(visit, &found);
    if (found.others == 0) return;
    if (__atomic_exchange_n(&vow_engine_this_copy.other_copies, 1u, __ATOMIC_ACQ_REL) != 0 || found.reported) return;
    char line[2048];
    const char *this_path = found.this_path != NULL ? found.this_path : vowengine_image_path(NULL);
    char described[1024];
    if (user != NULL) {
        /* libvow.so, in use only because a Swift component binds to it: say which. */
        snprintf(described, sizeof described, "%s (whose Swift engine %s uses)", this_path, user);
        this_path = described;
    }
    int n;
    if (found.others == 1) {
        n = snprintf(line, sizeof line,
                     "vow: two copies of the Vow engine are loaded in this process, one in %s and one in %s: "
                     "a promise of one is not a promise of the other, and each refuses the other's handles. ",
                     this_path, found.first_other);
    } else {
        n = snprintf(line, sizeof line,
                     "vow: %d copies of the Vow engine are loaded in this process (in %s, %s and others): "
                     "a promise of one is not a promise of the others, and each refuses the others' handles. ",
                     found.others + 1, this_path, found.first_other);
    }
    if (n < 0) return;
    size_t used = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    n = snprintf(line + used, sizeof line - used, "%s\n",
                 "Fix the build: Swift code that shares promises with C links the one libvow.so "
                 "(SwiftPM: the program's package lists the product vow, beside VowNIO or VowTesting "
                 "if it wants them, and a Swift library loaded beside libvow.so depends on vow only, not on "
                 "VowSwiftOnly, VowNIO or VowTesting; installed Vow: a system-library target on pkg-config vow-swift; swiftc: "
                 "$(pkg-config --variable=swiftflags vow)), never a copy of its own in a library");
    if (n < 0) return;
    used += (size_t)n < sizeof line - used ? (size_t)n : sizeof line - used - 1;
    if (used > 0 && line[used - 1] != '\n') line[used - 1] = '\n';
    ssize_t written = write(STDERR_FILENO, line, used);
    (void)written;
}
