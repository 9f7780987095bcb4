package main

import (
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/spindle-go/spindle/forkjoin"
)

// isLetter reports whether c belongs to a word: words are the maximal runs
// of ASCII letters, and every other byte separates them.
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// countFrom adds to counts the words of text that begin in [lo, hi): a
// word that begins before lo belongs to the piece before, and one that
// begins before hi is read to its end, past hi if need be. So pieces that
// cut words in two still count every word exactly once.
func countFrom(counts map[string]int, text []byte, lo, hi int) map[string]int {
	i := lo
	if i > 0 && isLetter(text[i-1]) {
		for i < hi && isLetter(text[i]) { // the rest of a word of the piece before
			i++
		}
	}
	for i < hi {
		if !isLetter(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && isLetter(text[i]) {
			i++
		}
		counts[string(text[start:i])]++ // the key is copied only when new
	}
	return counts
}

// countSerial counts the words of text with one loop.
func countSerial(text []byte) map[string]int {
	return countFrom(make(map[string]int), text, 0, len(text))
}

// minPiece is the fewest bytes a piece of the parallel count holds: a
// fresh map per piece costs its growth, and a merge costs the size of a
// map, so pieces stay far larger than a map of their words.
const minPiece = 256 << 10

// countParallel counts the words of text with forkjoin.Fold on the current
// pool: each run of pieces counts into a map of its own, and the maps of
// consecutive runs are merged.
func countParallel(text []byte) map[string]int {
	return forkjoin.Fold(0, len(text), minPiece,
		func() map[string]int { return make(map[string]int) },
		func(counts map[string]int, lo, hi int) map[string]int {
			return countFrom(counts, text, lo, hi)
		},
		mergeCounts)
}

// countThreads counts the words of text cut into parts equal parts, each
// on a goroutine locked to its OS thread (as a pool's workers are) into a
// map of its own, then merges the maps in order: the floor of any parallel
// count, with nothing scheduled and no piece stolen.
func countThreads(text []byte, parts int) map[string]int {
	counts := make([]map[string]int, parts)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			lo, hi := k*len(text)/parts, (k+1)*len(text)/parts
			counts[k] = countFrom(make(map[string]int), text, lo, hi)
		})
	}
	wg.Wait()
	total := counts[0]
	for _, c := range counts[1:] {
		total = mergeCounts(total, c)
	}
	return total
}

// mergeCounts adds the smaller map's counts into the larger one and
// returns it: a sum of counts does not depend on the order, so the merge
// may pick the cheaper direction.
func mergeCounts(a, b map[string]int) map[string]int {
	if len(a) < len(b) {
		a, b = b, a
	}
	for w, n := range b {
		a[w] += n
	}
	return a
}

// generate returns about size bytes of text: words drawn from a
// vocabulary of vocab random words with Zipf's law, as in natural text
// (a few words are most of the text, and most words are rare),
// separated by spaces, punctuation and line breaks.
func generate(size, vocab int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	words := make([][]byte, vocab)
	for i := range words {
		w := make([]byte, 2+rng.IntN(9))
		for j := range w {
			w[j] = 'a' + byte(rng.IntN(26))
		}
		if rng.IntN(10) == 0 {
			w[0] -= 'a' - 'A'
		}
		words[i] = w
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(vocab-1))
	seps := []string{" ", " ", " ", " ", " ", ", ", ". ", "\n", " - ", "; "}
	text := make([]byte, 0, size+16)
	for len(text) < size {
		text = append(text, words[zipf.Uint64()]...)
		text = append(text, seps[rng.IntN(len(seps))]...)
	}
	return text
}
