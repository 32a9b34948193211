// ISA-L erasure-code and GF(2^8) kernels (ErasureCoding adapter).
#include <isa-l/erasure_code.h>
#include <isa-l/gf_vect_mul.h>
