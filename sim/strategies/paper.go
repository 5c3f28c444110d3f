package strategies

// Paper 000's published figures, fastest group (rank 4) first, for the
// summary to put beside ours. Counts are in millions of tasks.
type paperCase struct {
	Tasks     map[Kind][]float64
	Intervals map[Kind][]float64
	// Weighted and unweighted update quality (Tables 2 and 4).
	Weighted, Unweighted map[Kind]float64
	// Queue is the queued tasks per online crawler the text reports.
	Queue map[Kind]float64
}

var paper = map[string]paperCase{
	"REC": {
		Tasks: map[Kind][]float64{
			Fixed: {0.905, 3.295, 2.979, 0.795, 0.056},
			IIR:   {0.251, 1.212, 1.512, 0.471, 0.038},
			ICR:   {0.522, 1.719, 1.499, 0.393, 0.027},
		},
		Intervals: map[Kind][]float64{
			Fixed: {60, 120, 240, 480, 960},
			IIR:   {216, 326, 473, 811, 1412},
			ICR:   {104, 230, 477, 972, 1964},
		},
		Weighted:   map[Kind]float64{Fixed: 1.9987, IIR: 2.0266, ICR: 2.0176},
		Unweighted: map[Kind]float64{Fixed: 0.5571, IIR: 0.4936, ICR: 0.4331},
		Queue:      map[Kind]float64{Fixed: 17, IIR: 2.8, ICR: 1.4},
	},
	"RUC": {
		Tasks: map[Kind][]float64{
			Fixed: {0.905, 3.295, 2.979, 0.795, 0.056},
			IIR:   {0.738, 3.506, 3.388, 0.943, 0.075},
			ICR:   {0.975, 3.428, 3.805, 0.691, 0.052},
		},
		Intervals: map[Kind][]float64{
			Fixed: {60, 120, 240, 480, 960},
			IIR:   {74, 110, 214, 399, 782},
			ICR:   {56, 112, 190, 544, 1119},
		},
		Weighted:   map[Kind]float64{Fixed: 4.7873, IIR: 9.1474, ICR: 8.2611},
		Unweighted: map[Kind]float64{Fixed: 1.0013, IIR: 1.9827, ICR: 1.9701},
		Queue:      map[Kind]float64{Fixed: 0.36, IIR: 2, ICR: 3},
	},
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
