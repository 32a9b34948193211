// ISA-L erasure-code and GF(2^8) kernels (ErasureCoding adapter); 2.30 (bookworm), 2.31 (trixie).
#include <isa-l.h>  /* ISAL_*_VERSION: libisal has no run-time version call */
#include <isa-l/erasure_code.h>
#include <isa-l/gf_vect_mul.h>
#include <isa-l/crc.h>      /* crc32_iscsi: CRC-32C of FEC repair symbols */
