package textbench

import "testing"

func TestEvaluate(t *testing.T) {
	c := Case{With: []string{"main one", "main two"}, Without: []string{"menu", "footer"}}
	tests := []struct {
		name string
		text string
		want Score
	}{
		{name: "all right", text: "main one\nmain two", want: Score{TruePositives: 2, TrueNegatives: 2}},
		{name: "boilerplate in", text: "menu main one main two footer", want: Score{TruePositives: 2, FalsePositives: 2}},
		{name: "half", text: "main one menu", want: Score{TruePositives: 1, FalseNegatives: 1, FalsePositives: 1, TrueNegatives: 1}},
		{name: "empty misses everything", text: "", want: Score{FalseNegatives: 2, TrueNegatives: 2}},
		{name: "case matters", text: "Main One", want: Score{FalseNegatives: 2, TrueNegatives: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Evaluate(c, tc.text); got != tc.want {
				t.Errorf("Evaluate(%q) = %+v, want %+v", tc.text, got, tc.want)
			}
		})
	}
}

func TestScoreRatios(t *testing.T) {
	s := Score{TruePositives: 8, FalsePositives: 2, FalseNegatives: 4, TrueNegatives: 6}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"precision", s.Precision(), 0.8},
		{"recall", s.Recall(), 8.0 / 12},
		{"accuracy", s.Accuracy(), 14.0 / 20},
		{"f1", s.F1(), 16.0 / 22},
	} {
		if d := tc.got - tc.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if (Score{}).F1() != 0 {
		t.Error("F1 of nothing is not 0")
	}
}
