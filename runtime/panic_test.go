package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// userPanic is a user-facing panic type over the engine's record, as
// pool's PanicError is.
type userPanic PanicError

func (e *userPanic) Error() string { return (*PanicError)(e).Error() }

type userPanicValue struct{}

func (userPanicValue) Wrap(pe *PanicError) error { return (*userPanic)(pe) }

func (userPanicValue) Unwrap(v any) *PanicError {
	if up, ok := v.(*userPanic); ok {
		return (*PanicError)(up)
	}
	return nil
}

// A registry raises and hands over its panics as its PanicValue shows
// them, and a re-raised one that comes back through an enclosing task is
// not wrapped again.
func TestARegistryShowsPanicsThroughItsPanicValue(t *testing.T) {
	handled := make(chan any, 1)
	r := newRegistry(t, Config{Workers: 2, PanicValue: userPanicValue{},
		PanicHandler: func(v any) { handled <- v }})
	watchdog(t, func() {
		cases := map[string]func(){
			"run":  func() { r.Run("test run", func() { panic("boom") }) },
			"join": func() { r.Run("test run", func() { join(func() {}, func() { panic("boom") }) }) },
			"nested joins": func() {
				r.Run("test run", func() {
					join(func() { join(func() { panic("boom") }, func() {}) }, func() {})
				})
			},
			"scope":             func() { r.Scope("test scope", func(s *Scope) { s.Spawn(func(*Scope) { panic("boom") }) }) },
			"join off the pool": func() { r.JoinOffPool("test join", func() { panic("boom") }, func() {}) },
		}
		for name, f := range cases {
			v := recoverValue(f)
			require.IsType(t, (*userPanic)(nil), v, name)
			assert.Equal(t, "boom", v.(*userPanic).Value, name)
		}
		r.Spawn("test spawn", func() { panic("detached") })
		v := <-handled
		require.IsType(t, (*userPanic)(nil), v, "the panic handler's argument")
		assert.Equal(t, "detached", v.(*userPanic).Value)
	})
}
