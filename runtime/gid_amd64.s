#include "textflag.h"

// func currentG() uintptr
// Returns the address of the running goroutine's g, which the amd64 port
// keeps in thread-local storage.
TEXT ·currentG(SB),NOSPLIT,$0-8
	MOVQ	(TLS), AX
	MOVQ	AX, ret+0(FP)
	RET
