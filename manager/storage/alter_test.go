package storage

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/task"
)

// encyclopedia is a page's main text as Hivecrawl stores it: prose with
// figures, about 330 words.
const encyclopedia = `The Rhine is a river that rises in the Swiss Alps and flows 1,233 kilometres to the North Sea. It is one of the major rivers of Europe and forms part of the border between Switzerland, Liechtenstein, Austria, Germany and France.

The river is navigable from Basel to its mouth, a distance of 883 kilometres, and carried about 310 million tonnes of goods in 2019. Its drainage basin covers 185,000 square kilometres and is home to some 58 million people.

Lake Constance, which the river crosses near its source, is 63 kilometres long and holds 48 cubic kilometres of water. Below the lake, the Rhine Falls at Schaffhausen drop 23 metres over a width of 150 metres; they are the largest plain waterfall in Europe by volume.

The Middle Rhine between Bingen and Bonn is a narrow gorge lined with castles and vineyards. Since 2002 it has been a World Heritage Site. The Lorelei, a slate rock of 132 metres on the eastern bank, is the narrowest point of the river and was long feared by boatmen because of its strong currents and the reefs beneath the water.

In the Netherlands the river splits into several branches, of which the Waal carries about two thirds of the water. The delta it forms with the Meuse is one of the most densely populated regions of the continent, and Rotterdam, near the mouth, is the largest port in Europe.

Pollution of the river peaked in the 1970s. After a fire at a chemical plant near Basel in 1986 released tonnes of pesticides into the water, the states along the river agreed on a programme to restore it. Salmon, which had disappeared by 1950, have returned to several of its tributaries, and the water is now clean enough for swimming in many places.

Updated 3 November 2026. 1,204 readers found this article useful.`

func TestAlterations(t *testing.T) {
	numbers := regexp.MustCompile(`\d+`)
	negated := strings.ReplaceAll(encyclopedia, " is ", " is not ")
	spam := strings.Replace(encyclopedia, "It is one of the major rivers",
		"Buy cheap replica watches at https://watches.example/rhine with free shipping today. It is one of the major rivers", 1)
	var ten strings.Builder
	for i, s := range strings.SplitAfter(encyclopedia, ". ") {
		ten.WriteString(s)
		if i < 10 {
			ten.WriteString("cheap pills ")
		}
	}
	paras := strings.Split(encyclopedia, "\n\n")
	half := strings.Join(paras[:len(paras)/2], "\n\n") + "\n\n" +
		strings.Repeat("This river was discovered by a famous explorer who sold the rights to it for a fortune. ", 14)

	forgeries := []struct{ name, upload string }{
		{"every number changed", numbers.ReplaceAllStringFunc(encyclopedia, func(n string) string { return n + "7" })},
		{"a spam sentence with a link", spam},
		{"ten spam insertions", ten.String()},
		{`every "is" negated`, negated},
		{"half the page replaced", half},
	}
	for _, f := range forgeries {
		for _, strict := range []bool{true, false} {
			why, bad := altered(f.upload, encyclopedia, strict)
			if !bad {
				t.Errorf("%s (validators unchanged %v): not caught (likeness %.2f)", f.name, strict, similarity(f.upload, encyclopedia))
				continue
			}
			t.Logf("%s (validators unchanged %v): %s; likeness %.2f", f.name, strict, why, similarity(f.upload, encyclopedia))
		}
	}

	// What a page changes by itself between a crawl and a check.
	added := encyclopedia + "\n\nCorrection: an earlier version of this article gave the wrong year for the Basel fire; it was 1986."
	honest := []struct {
		name, fetched string
		strict        bool // the validators say the page did not change
	}{
		{"the same text", encyclopedia, true},
		{"its date and counter moved on", strings.NewReplacer("3 November", "4 November", "1,204", "1,211").Replace(encyclopedia), false},
		{"a typo corrected", strings.Replace(encyclopedia, "boatmen", "boat crews", 1), false},
		{"a paragraph added by the site", added, false},
		{"spacing and punctuation", strings.NewReplacer("\n\n", "\n", ", ", " , ", ".", " .").Replace(encyclopedia), true},
	}
	for _, h := range honest {
		if why, bad := altered(encyclopedia, h.fetched, h.strict); bad {
			t.Errorf("honest upload, page where %s: judged altered (%s)", h.name, why)
		}
	}
	// Under the same validators the page cannot have gained a paragraph:
	// an upload without it left it out.
	if _, bad := altered(encyclopedia, added, true); !bad {
		t.Error("an upload lacking a paragraph the unchanged page holds was not caught")
	}
}

// TestDiffTextsCounts checks the diff's counts on a small case.
func TestDiffTextsCounts(t *testing.T) {
	d, ok := diffTexts("In 2019 the river carried 310 tonnes, spam spam here.", "In 2020 the river carried 311 tonnes.")
	want := textDiff{Words: 10, Added: 5, LongestAdded: 3, Dropped: 2, LongestDropped: 1, Numbers: 2, NumbersChanged: 2}
	if !ok || d != want {
		t.Fatalf("diffTexts = %+v, %v; want %+v", d, ok, want)
	}
	long := strings.Repeat("word ", maxDiffWords+1)
	if _, ok := diffTexts(long, "word"); ok {
		t.Fatal("a text over maxDiffWords was diffed")
	}
	if _, bad := altered(long, long, true); bad {
		t.Fatal("two equal texts too long to diff judged altered")
	}
}

func FuzzDiffTexts(f *testing.F) {
	f.Add(encyclopedia, strings.Replace(encyclopedia, " is ", " is not ", 3))
	f.Add("", "a b c")
	f.Add("1 2 3 four", "5 6 7 four")
	f.Fuzz(func(t *testing.T, a, b string) {
		d, ok := diffTexts(a, b)
		if !ok {
			return
		}
		aw, bw := len(words(a)), len(words(b))
		if d.Words != aw || d.Added > aw || d.Dropped > bw || d.LongestAdded > d.Added || d.NumbersChanged > d.Numbers {
			t.Fatalf("diffTexts(%q, %q) = %+v", a, b, d)
		}
		if aw-d.Added != bw-d.Dropped {
			t.Fatalf("diffTexts(%q, %q) = %+v: the words in common differ (%d, %d)", a, b, d, aw-d.Added, bw-d.Dropped)
		}
		if same, _ := diffTexts(a, a); same.Added != 0 || same.Dropped != 0 {
			t.Fatalf("a text against itself: %+v", same)
		}
		_ = fmt.Sprint(altered(a, b, true))
	})
}

// TestSubtleAlterationsFailResult: through spot-checks by volunteers
// fetching the live site, a result whose pages were altered in each of
// the ways word-pair likeness let through (0.76 to 0.95 alike) is
// revoked, on a site with validators and on one without; the honest
// crawl of the same site is confirmed.
func TestSubtleAlterationsFailResult(t *testing.T) {
	numbers := regexp.MustCompile(`\d+`)
	alterations := []struct {
		name  string
		alter func(string) string
	}{
		{"every number changed", func(s string) string {
			return numbers.ReplaceAllStringFunc(s, func(n string) string { return n + "1" })
		}},
		{"a spam sentence with a link", func(s string) string {
			return strings.Replace(s, "It is one of", "Cheap replica watches at https://watches.example today. It is one of", 1)
		}},
		{`every "is" negated`, func(s string) string { return strings.ReplaceAll(s, " is ", " is not ") }},
		{"honest", func(s string) string { return s }},
	}
	for _, validators := range []bool{true, false} {
		for _, a := range alterations {
			t.Run(fmt.Sprintf("%s, validators %v", a.name, validators), func(t *testing.T) {
				r, c, _ := validatingRig(t, func() float64 { return 0 })
				var web, result []*task.Page
				for i := range 4 {
					u := fmt.Sprintf("http://site.example/river-%d", i)
					text := strings.ReplaceAll(encyclopedia, "Rhine", fmt.Sprintf("Rhine %d", i))
					p, q := page(u, text), page(u, a.alter(text))
					if validators {
						p.ETag, q.ETag = fmt.Sprintf(`"v%d"`, i), fmt.Sprintf(`"v%d"`, i)
					}
					web, result = append(web, p), append(result, q)
				}
				tk, env := r.issue(t, 1)
				r.upload(t, tk.ID, env, result)
				n := r.checkUntilSettled(t, c, tk.ID, live(web), 5)
				got := r.stored(t, tk.ID)
				want := task.CreditRevoked
				if a.name == "honest" {
					want = task.CreditConfirmed
				}
				if got.State != want {
					t.Fatalf("after %d checks: %+v, want %s", n, got, want)
				}
			})
		}
	}
}
