package extract

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// go-trafilatura copies the content of list items, definition lists and
// table cells by walking their descendants one after the other (as
// trafilatura's process_nested_elements does with lxml's
// iterdescendants), so an element nested inside an inline one comes out
// after its parent's tail: "see <code>shutil.<b>copy</b>()</code> too"
// reads "see shutil. too. copy ()". flattenInline takes the nesting out
// first; the text a page shows does not depend on it.

// inline reports whether n is an inline HTML element whose text is shown:
// not a block (blocks), not one whose text is hidden (skipped), not
// <template> or foreign content.
func inline(n *html.Node) bool {
	return n.Type == html.ElementNode && n.Namespace == "" && !blocks[n.DataAtom] &&
		!skipped[n.DataAtom] && n.DataAtom != atom.Template
}

// flattenInline leaves no element with text inside an inline element
// under n: an <a> loses the elements inside it (their content stays), any
// other inline element that holds only such elements and text gives its
// content to its parent. Links keep their text and their place, so
// trafilatura's link density is unchanged. Void elements (<br>, <img>) inside a link stay.
func flattenInline(n *html.Node) { flattenUnder(n, false) }

// items are the elements whose descendants go-trafilatura copies one after
// the other.
var items = map[atom.Atom]bool{atom.Li: true, atom.Dt: true, atom.Dd: true, atom.Td: true, atom.Th: true}

// flattenUnder is flattenInline; inItem says n is inside an element of
// items, where an inline element that holds a block gives its content to
// its parent too (elsewhere that made trafilatura take more of the
// template).
func flattenUnder(n *html.Node, inItem bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && c.DataAtom != atom.Template && c.Namespace == "" && !skipped[c.DataAtom] {
			flattenUnder(c, inItem || items[c.DataAtom])
			if inline(c) && n.Type == html.ElementNode {
				if c.DataAtom == atom.A {
					unwrapChildren(c)
				} else if hasElement(c) && onlyTextElements(c, inItem) {
					unwrap(c)
				}
			}
		}
		c = next
	}
}

// unwrapChildren replaces the inline elements with content inside n by
// their content.
func unwrapChildren(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if inline(c) && c.FirstChild != nil {
			unwrap(c)
		}
		c = next
	}
}

// unwrap replaces n by its children.
func unwrap(n *html.Node) {
	p := n.Parent
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		n.RemoveChild(c)
		p.InsertBefore(c, n)
		c = next
	}
	p.RemoveChild(n)
}

// onlyTextElements reports whether every element child of n is an inline
// element that may hold text, or a block when blocks is set: an element
// whose text is hidden (<math> with its annotation) or a void one (<img>)
// stays inside its parent, where go-trafilatura expects it (lifted into a
// paragraph, it cut the paragraph short on Wikipedia's formulas).
func onlyTextElements(n *html.Node, blocks bool) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (skipped[c.DataAtom] || isVoid(c.DataAtom) || !blocks && !inline(c)) {
			return false
		}
	}
	return true
}

// hasElement reports whether n has an element child.
func hasElement(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return true
		}
	}
	return false
}
