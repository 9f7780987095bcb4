#include "textflag.h"

// func loadStatus(gp, off uintptr) uint32
// Loads the 32-bit word at gp+off (an aligned load: atomic on amd64).
TEXT ·loadStatus(SB),NOSPLIT,$0-20
	MOVQ	gp+0(FP), AX
	MOVQ	off+8(FP), BX
	MOVL	(AX)(BX*1), CX
	MOVL	CX, ret+16(FP)
	RET
