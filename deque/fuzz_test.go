package deque

import (
	"testing"
)

// FuzzChaseLev drives one deque from a single goroutine with an operation
// sequence decoded from the input and compares every result with a slice
// model (model[0] is the oldest item, the top end).
//
// Encoding: data[0] picks the capacity hint, data[0]%16 - 2, which covers
// <= 0 (the default), 1 and hints that are not powers of two. Each later
// byte c is one step, chosen by c%8:
//
//	0, 1, 2  Push one item
//	3, 4     Pop
//	5, 6     Steal
//	7        Push a burst of c/8+1 items (1..32), to force growth
//
// After the sequence the deque is drained, alternating Pop and Steal.
func FuzzChaseLev(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		d := NewChaseLev[int](int(data[0]%16) - 2)
		var model []int
		next := 0
		push := func() {
			next++
			v := next
			d.Push(&v)
			model = append(model, v)
		}
		pop := func(step int) {
			got := d.Pop()
			if len(model) == 0 {
				if got != nil {
					t.Fatalf("step %d: Pop on empty deque returned %d", step, *got)
				}
				return
			}
			want := model[len(model)-1]
			model = model[:len(model)-1]
			if got == nil || *got != want {
				t.Fatalf("step %d: Pop = %v, want %d", step, deref(got), want)
			}
		}
		steal := func(step int) {
			got, res := d.Steal()
			if len(model) == 0 {
				if res != Empty || got != nil {
					t.Fatalf("step %d: Steal on empty deque = (%v, %v), want (nil, Empty)", step, deref(got), res)
				}
				return
			}
			want := model[0]
			model = model[1:]
			// Alone, a thief cannot lose a race: Retry is a bug here.
			if res != Success || got == nil || *got != want {
				t.Fatalf("step %d: Steal = (%v, %v), want (%d, Success)", step, deref(got), res, want)
			}
		}
		check := func(step int) {
			if n := d.Len(); n != len(model) {
				t.Fatalf("step %d: Len = %d, want %d", step, n, len(model))
			}
			r := d.ring.Load()
			if size := len(r.slots); size&(size-1) != 0 || int64(size-1) != r.mask || size < len(model) {
				t.Fatalf("step %d: ring of %d slots, mask %d, holding %d items", step, size, r.mask, len(model))
			}
		}

		for i, c := range data[1:] {
			switch c % 8 {
			case 0, 1, 2:
				push()
			case 3, 4:
				pop(i)
			case 5, 6:
				steal(i)
			case 7:
				for range c/8 + 1 {
					push()
				}
			}
			check(i)
		}
		for i := 0; len(model) > 0; i++ {
			if i%2 == 0 {
				pop(-1)
			} else {
				steal(-1)
			}
			check(-1)
		}
		pop(-1)
		steal(-1)
	})
}

// deref makes a *int printable in failure messages.
func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
