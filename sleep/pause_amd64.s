#include "textflag.h"

// func pause(n uint32)
TEXT ·pause(SB),NOSPLIT,$0-4
	MOVL	n+0(FP), AX
again:
	PAUSE
	SUBL	$1, AX
	JNZ	again
	RET
