package assets

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"io/fs"
	"testing"
)

func TestIcons(t *testing.T) {
	for _, name := range []string{IconCrawling, IconIdle, IconPaused, IconThrottled, IconOffline, IconError, IconApp} {
		t.Run(name, func(t *testing.T) {
			p, err := IconPNG(name)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(p))
			if err != nil {
				t.Fatalf("PNG does not decode: %v", err)
			}
			if w := img.Bounds().Dx(); w != 64 && w != 256 {
				t.Errorf("PNG is %d px wide", w)
			}
			ico, err := IconICO(name)
			if err != nil {
				t.Fatal(err)
			}
			var hdr [3]uint16
			if err := binary.Read(bytes.NewReader(ico), binary.LittleEndian, &hdr); err != nil || hdr[0] != 0 || hdr[1] != 1 || hdr[2] < 1 {
				t.Fatalf("ICO header %v, %v", hdr, err)
			}
			// Every entry's PNG lies within the file and decodes.
			for i := 0; i < int(hdr[2]); i++ {
				e := ico[6+16*i:]
				size := binary.LittleEndian.Uint32(e[8:])
				off := binary.LittleEndian.Uint32(e[12:])
				if int(off+size) > len(ico) {
					t.Fatalf("entry %d runs past the file", i)
				}
				if _, err := png.Decode(bytes.NewReader(ico[off : off+size])); err != nil {
					t.Errorf("entry %d: %v", i, err)
				}
			}
		})
	}
	if _, err := IconPNG("nope"); err == nil {
		t.Error("IconPNG of an unknown name succeeded")
	}
}

func TestWebFiles(t *testing.T) {
	for _, name := range []string{"index.html", "app.js", "charts.js", "style.css", "favicon.png"} {
		if _, err := fs.Stat(Web(), name); err != nil {
			t.Errorf("web file %s: %v", name, err)
		}
	}
}
