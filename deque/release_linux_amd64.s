//go:build linux && amd64 && !race

#include "textflag.h"

// func storeRelease(p *atomic.Int64, v int64)
//
// A plain MOV: on amd64 (x86-TSO) every store is a release store, so this
// is the store-release that Push needs, without the XCHG (a full barrier)
// that Go's atomic Store compiles to. Being a call, it is also a compiler
// barrier: no memory access of the caller moves across it.
TEXT ·storeRelease(SB),NOSPLIT,$0-16
	MOVQ	p+0(FP), AX
	MOVQ	v+8(FP), BX
	MOVQ	BX, (AX)
	RET
