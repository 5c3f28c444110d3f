// Package plot writes the simulator's results: CSV tables and small,
// dependency-free SVG line charts (and step-shaped CDFs). The charts are
// deliberately plain: axes with round ticks, one coloured polyline per
// series and a legend.
package plot
