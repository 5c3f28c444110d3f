package extract

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// leadPage is a news page laid out as many are: the headline, a byline,
// the lead outside the element marked as the article's body, a picture
// with its credit, then the body. top is what stands between <body> and
// the article.
func leadPage(top, between string) string {
	return `<!DOCTYPE html><html><head><title>Harbour news</title></head><body>` + top +
		`<nav><ul><li><a href="/">Home</a></li><li><a href="/sport">Sport</a></li></ul></nav>` +
		`<main><div class="article" itemscope itemtype="http://schema.org/Article">` +
		`<h1 itemprop="headline">Winter timetable for the harbour ferries</h1>` +
		`<div class="byline"><span>By Ann Other</span> <time>7 December 2022</time></div>` +
		between +
		`<figure><img src="/ferry.jpg" alt=""><figcaption>The morning ferry leaves the outer harbour at first light. Photo: Harbour Office archive collection</figcaption></figure>` +
		`<div class="news-text-wrap" itemprop="articleBody">` + strings.Repeat(`<p>`+prose(2, "ferry")+`</p>`, 4) + `</div>` +
		`</div></main><footer><p>Copyright Harbour Gazette. All rights reserved. Imprint, privacy and cookies.</p></footer></body></html>`
}

const ferryLead = "From Monday the ferries to the islands sail every ninety minutes instead of every hour, and the last boat leaves at eight in the evening."

func TestLead(t *testing.T) {
	lead := `<div class="intro"><p>` + ferryLead + `</p></div>`
	farTop := `<header><h1>Harbour Gazette</h1>` + strings.Repeat(`<div>Local news and weather for the bay and its islands since 1901</div>`, 8) + `</header>`
	tests := []struct {
		name, body string
		want       []string
		not        []string
	}{
		{name: "lead between headline and body", body: leadPage("", lead),
			want: []string{ferryLead + "\n", "ferry committee met on day 1"},
			not:  []string{"By Ann Other", "Photo: Harbour Office", "Copyright Harbour Gazette"}},
		{name: "no lead", body: leadPage("", ""),
			want: []string{"ferry committee met on day 1"},
			not:  []string{"By Ann Other", "Photo: Harbour Office"}},
		{name: "first h1 far from the article", body: leadPage(farTop, lead),
			want: []string{"ferry committee met on day 1"},
			not:  []string{"Local news and weather"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.body, "text/html", Options{Text: true})
			checkText(t, p.Text, tc.want, tc.not)
		})
	}
}

func TestWithLead(t *testing.T) {
	long := strings.Repeat("word ", 20)
	tests := []struct {
		name, body, main, want string
	}{
		{name: "lead taken", body: `<h1>Title</h1><p>` + long + `</p><p>Body starts here.</p><p>More.</p>`,
			main: "Body starts here.\nMore.", want: strings.TrimSpace(long) + "\nBody starts here.\nMore."},
		{name: "short lines are not a lead", body: `<h1>Title</h1><p>12 May 2023</p><p>Body starts here.</p>`,
			main: "Body starts here.", want: "Body starts here."},
		{name: "main already holds it", body: `<h1>Title</h1><p>` + long + `</p><p>Body starts here.</p>`,
			main: "Body starts here.\n" + strings.TrimSpace(long), want: "Body starts here.\n" + strings.TrimSpace(long)},
		{name: "no h1", body: `<p>` + long + `</p><p>Body starts here.</p>`,
			main: "Body starts here.", want: "Body starts here."},
		{name: "main's start not found", body: `<h1>Title</h1><p>` + long + `</p><p>Body starts here.</p>`,
			main: "Another text.", want: "Another text."},
		{name: "too far from the h1", body: `<h1>Title</h1><p>` + long + `</p>` + strings.Repeat(`<p>line</p>`, maxLeadLines) + `<p>Body starts here.</p>`,
			main: "Body starts here.", want: "Body starts here."},
		{name: "caption is not a lead", body: `<h1>Title</h1><figure><figcaption>` + long + `</figcaption></figure><p>Body starts here.</p>`,
			main: "Body starts here.", want: "Body starts here."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if got := withLead(doc, tc.main); got != tc.want {
				t.Errorf("withLead = %q, want %q", got, tc.want)
			}
		})
	}
}

// A news page as TYPO3's news extension renders it: the lead in a
// "teaser-text" element, which go-trafilatura drops as a teaser, and
// teasers of other articles, which link to them, after the text.
func TestTeaserLead(t *testing.T) {
	const lead = "The ferry company has ordered two new boats for the island route, the first to arrive next spring."
	body := `<!DOCTYPE html><html><head><title>Ferry news</title></head><body>` +
		`<nav><a href="/">Home</a> <a href="/news">News</a></nav>` +
		`<div class="news news-single"><div class="article" itemscope itemtype="http://schema.org/Article">` +
		`<h3 itemprop="headline">Two new ferries</h3>` +
		`<div class="footer"><p><span class="news-list-date">07.12.2022</span></p></div>` +
		`<div class="teaser-text" itemprop="description"><p>` + lead + `</p></div>` +
		`<div class="news-text-wrap">` + strings.Repeat(`<p>`+prose(2, "ferry")+`</p>`, 4) + `</div>` +
		`</div></div>` +
		`<div class="news-list"><div class="news-teaser"><h4><a href="/news/harbour">Harbour wall repaired</a></h4>` +
		`<p class="TeaserText">The wall on the south side of the old harbour was repaired over the summer months.</p><a href="/news/harbour">More</a></div></div>` +
		`<footer><p>Imprint and privacy</p></footer></body></html>`
	p := parse(t, body, "text/html", Options{Text: true})
	if !strings.Contains(p.Text, lead) {
		t.Errorf("text lacks the lead:\n%s", p.Text)
	}
	if !strings.Contains(p.Text, "ferry committee met on day 1") {
		t.Errorf("text lacks the body:\n%s", p.Text)
	}
	if strings.Contains(p.Text, "south side of the old harbour") {
		t.Errorf("text holds another article's teaser:\n%s", p.Text)
	}
}

func TestKeepTeaserLeads(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<div id="Main-Teaser" class="articleTeaser-text big"><p>Lead</p></div>` +
		`<div class="teaser"><a href="/other">Other article</a></div>`))
	if err != nil {
		t.Fatal(err)
	}
	keepTeaserLeads(doc)
	var got []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "div" {
			for _, a := range n.Attr {
				got = append(got, a.Key+"="+a.Val)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	want := []string{"id=Main-lead", "class=articlelead-text big", "class=teaser"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("attributes %q, want %q", got, want)
	}
}
