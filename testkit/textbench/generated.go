package textbench

import (
	"fmt"
	"html"
	"math/rand/v2"
	"strings"
)

// Generated returns n pages built from seed, with a stated ground truth.
// Each page has one of several layouts, each a common shape of real sites:
//
//   - news: <article> with headline, byline, paragraphs, sub-headings, a
//     list and a quote; header menu, related links, cookie notice, footer.
//   - blog: the post in a <div class="entry-content">, without <article>,
//     followed by a comment thread and a tag cloud.
//   - docs: a long sidebar of links, the text in <div class="content">
//     with code and a table.
//   - short: a notice of one or two sentences (under trafilatura's
//     250-character minimum) in a full site template.
//   - divs: an old-style page, text in <div>s separated by <br>, no <p>.
//   - listing: the main text is a list of items with descriptions.
//
// With holds up to 5 runs of 5–8 words from the main text (paragraphs,
// list items, headings, cells, quotes: never spanning an element); Without
// up to 5 pieces of the template (menu, related titles, comments, cookie
// notice, footer), each a phrase drawn from words the main text never uses.
func Generated(seed uint64, n int) []Case {
	cases := make([]Case, 0, n)
	for i := range n {
		g := &gen{r: rand.New(rand.NewPCG(seed, uint64(i)))}
		layout := layouts[i%len(layouts)]
		layout.build(g)
		g.footer()
		c := Case{}
		c.Name = fmt.Sprintf("%s-%03d.html", layout.name, i)
		c.URL = fmt.Sprintf("http://%s.example.com/%03d.html", layout.name, i)
		c.HTML = []byte(g.page.String())
		c.With, c.Without = spread(g.with, 5), spread(g.without, 5)
		cases = append(cases, c)
	}
	return cases
}

// layouts build a page's body: each starts it with top, and Generated ends
// it with footer.
var layouts = []struct {
	name  string
	build func(*gen)
}{
	{"news", (*gen).news}, {"blog", (*gen).blog}, {"docs", (*gen).docs},
	{"short", (*gen).short}, {"divs", (*gen).divs}, {"listing", (*gen).listing},
}

// mainWords make the main text; chromeWords the template. The two share
// no word, so a template phrase cannot turn up in the main text by chance.
var mainWords = strings.Fields(`the of and to in a is that for it as was with be by on not he this
are or his from at which but have an they you were her she there been one all we their has would
when if so no will more can who said about some what time new only into may after other could its
than then first also any these two over most well where through long many before must people made
between year years city river market council school village garden harbour station morning evening
winter summer autumn spring weather history museum library bridge railway road street square church
castle valley mountain forest island coast lake north south east west national community project
research study team player match league result score government minister policy budget election
committee member public plan service health hospital doctor patient water energy power price cost
money business company worker industry farm farmer harvest food restaurant kitchen recipe bread
cheese coffee music concert festival film theatre painting artist writer novel poem language
student teacher lesson university science computer network software system data record archive
visitor tourist journey travel family child friend neighbour house building window door light stone
wooden ancient modern small large quiet busy bright early late recent annual several important
difficult popular careful certain regional quickly slowly finally recently nearly often usually
together however although because while during against without within around behind across toward
beyond announced opened closed described explained reported suggested reached improved increased
reduced built planned started finished discovered remained returned visited collected organised
supported welcomed`)

var chromeWords = strings.Fields(`subscribe newsletter login register account cart checkout cookies
consent privacy terms imprint sitemap contact careers advertise partners sponsored trending popular
more menu share tweet pin email print follow like reply permalink archives categories tags widget
copyright rights reserved powered theme wordpress download app store podcast webinar deals offers
promo coupon premium upgrade settings profile notifications bookmark saved feed rss top scroll
banner affiliate disclosure accessibility helpdesk faq feedback jobs press investors legal`)

// gen builds one page and records its snippets.
type gen struct {
	r       *rand.Rand
	page    strings.Builder
	with    []string
	without []string
}

func (g *gen) pick(words []string, n int, capital bool) string {
	out := make([]string, n)
	for i := range out {
		out[i] = words[g.r.IntN(len(words))]
	}
	if capital {
		out[0] = strings.ToUpper(out[0][:1]) + out[0][1:]
	}
	return strings.Join(out, " ")
}

// sentence is main text; sentences of 8 to 20 words.
func (g *gen) sentence() string { return g.pick(mainWords, 8+g.r.IntN(13), true) + "." }

func (g *gen) paragraph(sentences int) string {
	s := make([]string, sentences)
	for i := range s {
		s[i] = g.sentence()
	}
	return strings.Join(s, " ")
}

// main writes text of the main content inside tag and keeps a snippet of
// it when it has enough words.
func (g *gen) main(tag, text string) {
	fmt.Fprintf(&g.page, "<%s>%s</%s>\n", tag, html.EscapeString(text), tag)
	g.keep(text)
}

func (g *gen) keep(text string) {
	if w := strings.Fields(text); len(w) >= 6 {
		n := min(len(w)-1, 5+g.r.IntN(4))
		g.with = append(g.with, strings.Join(w[1:n], " "))
	}
}

// chrome is a template phrase of n words, recorded as boilerplate.
func (g *gen) chrome(n int) string {
	s := g.pick(chromeWords, n, true)
	if n >= 3 {
		g.without = append(g.without, s)
	}
	return html.EscapeString(s)
}

// top starts a page with a title of that many main-text words: the <head>
// and the site header with its menu. It returns the title, which the
// layout repeats as its heading.
func (g *gen) top(words int) string {
	title := g.pick(mainWords, words, true)
	fmt.Fprintf(&g.page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>"+
		"<link rel=\"stylesheet\" href=\"/s.css\"><script>var dataLayer=[];function track(){dataLayer.push(arguments)}</script></head>\n<body>\n",
		html.EscapeString(title))
	g.page.WriteString("<header><div class=\"logo\"><a href=\"/\">Home</a></div><nav class=\"menu\"><ul>\n")
	for range 6 + g.r.IntN(6) {
		fmt.Fprintf(&g.page, "<li><a href=\"/%d\">%s</a></li>\n", g.r.IntN(1000), g.chrome(1+g.r.IntN(3)))
	}
	g.page.WriteString("</ul></nav></header>\n")
	return title
}

func (g *gen) related(class string, n int) {
	fmt.Fprintf(&g.page, "<aside class=\"%s\"><h3>%s</h3><ul>\n", class, g.chrome(2))
	for range n {
		fmt.Fprintf(&g.page, "<li><a href=\"/r/%d\">%s</a></li>\n", g.r.IntN(10000), g.chrome(3+g.r.IntN(4)))
	}
	g.page.WriteString("</ul></aside>\n")
}

// footer ends a page: a cookie notice and the site footer.
func (g *gen) footer() {
	fmt.Fprintf(&g.page, "<div class=\"cookie-banner\"><p>%s. <button>%s</button></p></div>\n", g.chrome(10), g.chrome(1))
	fmt.Fprintf(&g.page, "<footer><p>%s</p><ul><li><a href=\"/p\">%s</a></li><li><a href=\"/t\">%s</a></li></ul>"+
		"<p>© 2026 %s</p></footer>\n</body></html>\n", g.chrome(8), g.chrome(2), g.chrome(3), g.chrome(4))
}

func (g *gen) news() {
	title := g.top(6 + g.r.IntN(5))
	g.page.WriteString("<main><article>\n")
	g.main("h1", title)
	fmt.Fprintf(&g.page, "<p class=\"byline\">%s</p>\n", g.chrome(3))
	for k := range 4 + g.r.IntN(8) {
		if k > 0 && k%3 == 0 {
			g.main("h2", g.pick(mainWords, 4+g.r.IntN(4), true))
		}
		g.main("p", g.paragraph(2+g.r.IntN(4)))
		if k == 2 {
			g.page.WriteString("<ul>\n")
			for range 3 + g.r.IntN(3) {
				g.main("li", g.sentence())
			}
			g.page.WriteString("</ul>\n")
			g.main("blockquote", g.paragraph(2))
		}
	}
	fmt.Fprintf(&g.page, "<div class=\"share\"><a href=\"#\">%s</a> <a href=\"#\">%s</a></div>\n", g.chrome(3), g.chrome(3))
	g.page.WriteString("</article>\n")
	g.related("related", 4+g.r.IntN(6))
	g.page.WriteString("</main>\n")
}

func (g *gen) blog() {
	title := g.top(5 + g.r.IntN(5))
	g.page.WriteString("<div id=\"page\"><div class=\"post\">\n")
	g.main("h2", title)
	g.page.WriteString("<div class=\"entry-content\">\n")
	for range 3 + g.r.IntN(6) {
		g.main("p", g.paragraph(2+g.r.IntN(4)))
	}
	g.page.WriteString("</div></div>\n<div id=\"comments\" class=\"comments-area\"><h3>Comments</h3><ol class=\"comment-list\">\n")
	for range 2 + g.r.IntN(4) {
		fmt.Fprintf(&g.page, "<li class=\"comment\"><div class=\"comment-author\">%s</div><div class=\"comment-content\"><p>%s</p></div></li>\n",
			g.chrome(2), g.chrome(9))
	}
	g.page.WriteString("</ol></div>\n<div class=\"tagcloud\">")
	for range 8 {
		fmt.Fprintf(&g.page, "<a href=\"/tag/%d\">%s</a> ", g.r.IntN(100), g.chrome(1))
	}
	g.page.WriteString("</div></div>\n")
	g.related("widget", 5)
}

func (g *gen) docs() {
	title := g.top(3 + g.r.IntN(3))
	g.page.WriteString("<div class=\"wrapper\"><div class=\"sidebar\"><ul>\n")
	for range 20 + g.r.IntN(30) {
		fmt.Fprintf(&g.page, "<li><a href=\"/doc/%d\">%s</a></li>\n", g.r.IntN(1000), g.chrome(3+g.r.IntN(2)))
	}
	g.page.WriteString("</ul></div>\n<div class=\"content\">\n")
	g.main("h1", title)
	for k := range 3 + g.r.IntN(6) {
		g.main("p", g.paragraph(1+g.r.IntN(4)))
		switch k {
		case 1:
			fmt.Fprintf(&g.page, "<pre><code>x = compute(%d)\nprint(x)</code></pre>\n", g.r.IntN(100))
		case 2:
			g.page.WriteString("<table><tr><th>name</th><th>meaning</th></tr>\n")
			for range 3 {
				g.page.WriteString("<tr><td>" + g.pick(mainWords, 1, false) + "</td>")
				g.main("td", g.sentence())
				g.page.WriteString("</tr>\n")
			}
			g.page.WriteString("</table>\n")
		}
	}
	g.page.WriteString("</div></div>\n")
}

func (g *gen) short() {
	title := g.top(4)
	g.page.WriteString("<main><article>\n")
	g.main("h1", title)
	g.main("p", g.pick(mainWords, 10+g.r.IntN(15), true)+".")
	g.page.WriteString("</article>\n")
	g.related("related", 6+g.r.IntN(6))
	g.page.WriteString("</main>\n")
}

func (g *gen) divs() {
	title := g.top(5)
	g.page.WriteString("<div id=\"container\"><div id=\"left\">")
	for range 10 {
		fmt.Fprintf(&g.page, "<a href=\"/l/%d\">%s</a><br>\n", g.r.IntN(100), g.chrome(2+g.r.IntN(2)))
	}
	g.page.WriteString("</div>\n<div id=\"text\"><b>" + html.EscapeString(title) + "</b><br><br>\n")
	g.keep(title)
	for range 3 + g.r.IntN(5) {
		t := g.paragraph(2 + g.r.IntN(4))
		g.page.WriteString(html.EscapeString(t) + "<br><br>\n")
		g.keep(t)
	}
	g.page.WriteString("</div></div>\n")
}

func (g *gen) listing() {
	title := g.top(4)
	g.page.WriteString("<main>\n")
	g.main("h1", title)
	g.main("p", g.paragraph(1))
	g.page.WriteString("<ul class=\"items\">\n")
	for range 5 + g.r.IntN(10) {
		name := g.pick(mainWords, 3, true)
		desc := g.sentence()
		fmt.Fprintf(&g.page, "<li><h3>%s</h3><p>%s</p></li>\n", html.EscapeString(name), html.EscapeString(desc))
		g.keep(desc)
	}
	g.page.WriteString("</ul>\n</main>\n")
	g.related("related", 5)
}
