package plot

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
)

// WriteCSV writes header and rows to path.
func WriteCSV(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		f.Close()
		return fmt.Errorf("write csv %s: %w", path, err)
	}
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return fmt.Errorf("write csv %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write csv %s: %w", path, err)
	}
	return nil
}

// F formats a float for a CSV cell with up to 6 significant digits.
func F(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
