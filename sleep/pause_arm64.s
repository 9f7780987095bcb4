#include "textflag.h"

// func pause(n uint32)
TEXT ·pause(SB),NOSPLIT,$0-4
	MOVWU	n+0(FP), R0
again:
	YIELD
	SUBS	$1, R0
	BNE	again
	RET
