#include "textflag.h"

// func currentG() uintptr
// Returns the address of the running goroutine's g, which the arm64 port
// keeps in the g register (R28).
TEXT ·currentG(SB),NOSPLIT,$0-8
	MOVD	g, R0
	MOVD	R0, ret+0(FP)
	RET

// func loadStatus(gp, off uintptr) uint32
// Loads the 32-bit word at gp+off with acquire ordering.
TEXT ·loadStatus(SB),NOSPLIT,$0-20
	MOVD	gp+0(FP), R0
	MOVD	off+8(FP), R1
	ADD	R1, R0
	LDARW	(R0), R2
	MOVW	R2, ret+16(FP)
	RET
