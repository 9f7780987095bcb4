#include "textflag.h"

// func currentG() uintptr
// Returns the address of the running goroutine's g, which the arm64 port
// keeps in the g register (R28).
TEXT ·currentG(SB),NOSPLIT,$0-8
	MOVD	g, R0
	MOVD	R0, ret+0(FP)
	RET
