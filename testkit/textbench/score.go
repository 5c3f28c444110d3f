package textbench

import "strings"

// Score counts snippets found and missed, as go-trafilatura's comparison
// script does.
type Score struct {
	TruePositives, FalseNegatives, FalsePositives, TrueNegatives int
}

// Evaluate scores text against c: a With snippet contained in text is a
// true positive, else a false negative; a Without snippet contained in
// text is a false positive, else a true negative. An empty text misses
// every snippet.
func Evaluate(c Case, text string) Score {
	var s Score
	if text == "" {
		s.FalseNegatives = len(c.With)
		s.TrueNegatives = len(c.Without)
		return s
	}
	for _, w := range c.With {
		if strings.Contains(text, w) {
			s.TruePositives++
		} else {
			s.FalseNegatives++
		}
	}
	for _, w := range c.Without {
		if strings.Contains(text, w) {
			s.FalsePositives++
		} else {
			s.TrueNegatives++
		}
	}
	return s
}

// Add returns the sum of s and o.
func (s Score) Add(o Score) Score {
	return Score{
		TruePositives:  s.TruePositives + o.TruePositives,
		FalseNegatives: s.FalseNegatives + o.FalseNegatives,
		FalsePositives: s.FalsePositives + o.FalsePositives,
		TrueNegatives:  s.TrueNegatives + o.TrueNegatives,
	}
}

// Precision is TP / (TP + FP).
func (s Score) Precision() float64 {
	return ratio(s.TruePositives, s.TruePositives+s.FalsePositives)
}

// Recall is TP / (TP + FN).
func (s Score) Recall() float64 {
	return ratio(s.TruePositives, s.TruePositives+s.FalseNegatives)
}

// Accuracy is (TP + TN) / all.
func (s Score) Accuracy() float64 {
	return ratio(s.TruePositives+s.TrueNegatives,
		s.TruePositives+s.TrueNegatives+s.FalsePositives+s.FalseNegatives)
}

// F1 is 2TP / (2TP + FP + FN), the script's F-score.
func (s Score) F1() float64 {
	return ratio(2*s.TruePositives, 2*s.TruePositives+s.FalsePositives+s.FalseNegatives)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
