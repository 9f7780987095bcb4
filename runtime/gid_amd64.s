#include "textflag.h"

// func currentG() uintptr
// Returns the address of the running goroutine's g, which the amd64 port
// keeps in thread-local storage.
TEXT ·currentG(SB),NOSPLIT,$0-8
	MOVQ	(TLS), AX
	MOVQ	AX, ret+0(FP)
	RET

// func loadStatus(gp, off uintptr) uint32
// Loads the 32-bit word at gp+off (an aligned load: atomic on amd64).
TEXT ·loadStatus(SB),NOSPLIT,$0-20
	MOVQ	gp+0(FP), AX
	MOVQ	off+8(FP), BX
	MOVL	(AX)(BX*1), CX
	MOVL	CX, ret+16(FP)
	RET
