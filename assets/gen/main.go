// Command gen draws Hivecrawl's icons into assets/icons and the page's
// favicon into assets/web: one hexagonal hive cell per tray state, as PNG and
// as ICO (PNG-compressed entries, which Windows Vista and later read). Run it
// from the repository root with `go generate ./assets`; the output is
// committed, so builds need no generator.
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
)

// shape reports whether the point (x, y), in units of the icon's side
// (0..1, y down), is inside.
type shape func(x, y float64) bool

// layer is a shape painted in one colour.
type layer struct {
	s shape
	c color.NRGBA
}

var (
	honey = color.NRGBA{0xF2, 0xA5, 0x16, 0xFF}
	amber = color.NRGBA{0xE0, 0x6C, 0x00, 0xFF}
	slate = color.NRGBA{0x5B, 0x6B, 0x82, 0xFF}
	grey  = color.NRGBA{0x9A, 0xA0, 0xA6, 0xFF}
	red   = color.NRGBA{0xD9, 0x30, 0x25, 0xFF}
	white = color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}
	pale  = color.NRGBA{0xFF, 0xF1, 0xD0, 0xFF}
	dark  = color.NRGBA{0x3A, 0x2A, 0x05, 0xFF}
)

// hexagon is a pointy-topped regular hexagon around (cx, cy).
func hexagon(cx, cy, r float64) shape {
	return func(x, y float64) bool {
		dx, dy := math.Abs(x-cx), math.Abs(y-cy)
		// Pointy top: the flat sides are vertical at ±r·√3/2.
		w := r * math.Sqrt(3) / 2
		return dx <= w && dy <= r-dx/math.Sqrt(3)
	}
}

func rect(x0, y0, x1, y1 float64) shape {
	return func(x, y float64) bool { return x >= x0 && x <= x1 && y >= y0 && y <= y1 }
}

func circle(cx, cy, r float64) shape {
	return func(x, y float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }
}

// segment is a line from (x0, y0) to (x1, y1) of width w with round ends.
func segment(x0, y0, x1, y1, w float64) shape {
	return func(x, y float64) bool {
		dx, dy := x1-x0, y1-y0
		t := ((x-x0)*dx + (y-y0)*dy) / (dx*dx + dy*dy)
		t = math.Max(0, math.Min(1, t))
		px, py := x0+t*dx-x, y0+t*dy-y
		return px*px+py*py <= w*w/4
	}
}

func minus(a, b shape) shape { return func(x, y float64) bool { return a(x, y) && !b(x, y) } }

func union(ss ...shape) shape {
	return func(x, y float64) bool {
		for _, s := range ss {
			if s(x, y) {
				return true
			}
		}
		return false
	}
}

// cell is the hive cell every icon starts from.
func cell(c color.NRGBA) layer { return layer{hexagon(0.5, 0.5, 0.48), c} }

// icons are the tray states and the application icon.
var icons = map[string][]layer{
	// Crawling: a full honey cell with a smaller cell inside, busy.
	"crawling": {cell(honey), {minus(hexagon(0.5, 0.5, 0.30), hexagon(0.5, 0.5, 0.19)), dark}},
	// Idle: the cell drawn as an outline; nothing to do.
	"idle": {{minus(hexagon(0.5, 0.5, 0.48), hexagon(0.5, 0.5, 0.34)), honey}, {hexagon(0.5, 0.5, 0.34), pale}},
	// Paused or snoozed: two bars.
	"paused": {cell(slate), {union(rect(0.36, 0.30, 0.45, 0.70), rect(0.55, 0.30, 0.64, 0.70)), white}},
	// Throttled by a limit: bars cut short, as a capped rate.
	"throttled": {cell(amber), {union(segment(0.30, 0.34, 0.70, 0.34, 0.09), segment(0.30, 0.50, 0.58, 0.50, 0.09), segment(0.30, 0.66, 0.46, 0.66, 0.09)), white}},
	// Offline: a struck-through cell.
	"offline": {cell(grey), {union(minus(hexagon(0.5, 0.5, 0.28), hexagon(0.5, 0.5, 0.18)), segment(0.28, 0.72, 0.72, 0.28, 0.08)), white}},
	// Error: an exclamation mark.
	"error": {cell(red), {union(segment(0.5, 0.28, 0.5, 0.58, 0.11), circle(0.5, 0.71, 0.065)), white}},
	// The application icon: the crawling cell.
	"hivecrawl": {cell(honey), {minus(hexagon(0.5, 0.5, 0.30), hexagon(0.5, 0.5, 0.19)), dark}},
}

// draw renders layers at size×size pixels with 4×4 supersampling.
func draw(layers []layer, size int) *image.NRGBA {
	const ss = 4
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					for i := len(layers) - 1; i >= 0; i-- {
						if layers[i].s(x, y) {
							c := layers[i].c
							r, g, b, a = r+float64(c.R), g+float64(c.G), b+float64(c.B), a+1
							break
						}
					}
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{uint8(r / a), uint8(g / a), uint8(b / a), uint8(255 * a / ss / ss)})
		}
	}
	return img
}

func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // encoding to memory cannot fail
	}
	return buf.Bytes()
}

// encodeICO writes an ICO whose entries are PNG images.
func encodeICO(layers []layer, sizes []int) []byte {
	var pngs [][]byte
	for _, s := range sizes {
		pngs = append(pngs, encodePNG(draw(layers, s)))
	}
	var buf bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&buf, le, [3]uint16{0, 1, uint16(len(sizes))})
	off := 6 + 16*len(sizes)
	for i, s := range sizes {
		dim := uint8(s)
		if s >= 256 {
			dim = 0
		}
		binary.Write(&buf, le, struct {
			W, H, Colors, Reserved uint8
			Planes, Bits           uint16
			Size, Offset           uint32
		}{dim, dim, 0, 0, 1, 32, uint32(len(pngs[i])), uint32(off)})
		off += len(pngs[i])
	}
	for _, p := range pngs {
		buf.Write(p)
	}
	return buf.Bytes()
}

func write(path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func main() {
	dir := "icons"
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join("assets", "icons")
	}
	for name, l := range icons {
		size := 64
		if name == "hivecrawl" {
			size = 256
		}
		write(filepath.Join(dir, name+".png"), encodePNG(draw(l, size)))
		write(filepath.Join(dir, name+".ico"), encodeICO(l, []int{16, 24, 32, 48, 256}))
	}
	write(filepath.Join(dir, "..", "web", "favicon.png"), encodePNG(draw(icons["crawling"], 32)))
}
