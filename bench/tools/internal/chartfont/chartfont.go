// Package chartfont holds the fonts that the bench module's charts
// (tools/chart, tools/scale) draw with: Liberation Sans, embedded in
// gonum/plot, so that a chart renders the same on every machine.
package chartfont

import (
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
)

var (
	// Regular is Liberation Sans.
	Regular = font.Font{Typeface: "Liberation", Variant: "Sans"}
	// Bold is Liberation Sans Bold, or Regular if the collection lacks it.
	Bold = find("LiberationSans-Bold", Regular)
)

// find returns the Liberation font of that name, or def.
func find(name string, def font.Font) font.Font {
	for _, f := range liberation.Collection() {
		if f.Font.Name() == name {
			return f.Font
		}
	}
	return def
}
