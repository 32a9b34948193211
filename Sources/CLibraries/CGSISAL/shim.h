// ISA-L erasure-code and GF(2^8) kernels (ErasureCoding adapter); 2.30 (bookworm), 2.31 (trixie).
#include <isa-l.h>  /* ISAL_*_VERSION: libisal has no run-time version call */
#include <isa-l/erasure_code.h>
#include <isa-l/gf_vect_mul.h>
#include <isa-l/crc.h>      /* crc32_iscsi: CRC-32C of FEC repair symbols */

/* Software prefetch for the FEC decoder (a hint only: any address is safe, nothing is read).
 * gs_prefetch_range: every cache line of [p, p + n) towards L2 (a packet a later rebuild reads);
 * gs_prefetch_write: the line at p towards L1 for writing (an object header about to be released). */
static inline void gs_prefetch_range(const void *p, long n) {
    const char *c = (const char *)p, *end = c + n;
    for (; c < end; c += 64) __builtin_prefetch(c, 0, 2);
}
static inline void gs_prefetch_write(const void *p) { __builtin_prefetch(p, 1, 3); }
