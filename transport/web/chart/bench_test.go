package chart

import (
	"strconv"
	"testing"
)

func benchSeries(n, k int) ([]string, []Series) {
	labels := make([]string, n)
	series := make([]Series, k)
	for i := range labels {
		labels[i] = "Category " + strconv.Itoa(i)
	}
	for s := range series {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64((i*31+s*17)%101) - 20
		}
		series[s] = Series{Label: "Series " + strconv.Itoa(s), Values: vals}
	}
	return labels, series
}

func BenchmarkBar(b *testing.B) {
	labels, series := benchSeries(24, 3)
	b.ReportAllocs()
	for b.Loop() {
		_ = Bar(labels, series, Options{ID: "b", Title: "Bench"})
	}
}

func BenchmarkLine(b *testing.B) {
	labels, series := benchSeries(365, 4)
	b.ReportAllocs()
	for b.Loop() {
		_ = Line(labels, series, Options{ID: "b"})
	}
}

func BenchmarkPie(b *testing.B) {
	labels, series := benchSeries(8, 1)
	b.ReportAllocs()
	for b.Loop() {
		_ = Pie(labels, series, Options{ID: "b"})
	}
}

func BenchmarkRadar(b *testing.B) {
	labels, series := benchSeries(8, 3)
	b.ReportAllocs()
	for b.Loop() {
		_ = Radar(labels, series, Options{ID: "b"})
	}
}

func BenchmarkScatter(b *testing.B) {
	pts := make([]Point, 500)
	for i := range pts {
		pts[i] = Point{X: float64(i), Y: float64((i * 7) % 50)}
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Scatter([]PointSeries{{Label: "a", Points: pts}}, Options{ID: "b"})
	}
}

func BenchmarkSparkline(b *testing.B) {
	_, series := benchSeries(60, 1)
	b.ReportAllocs()
	for b.Loop() {
		_ = Sparkline(series[0].Values, SparkOptions{})
	}
}

func BenchmarkGauge(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Gauge(GaugeSpec{Value: 72, Max: 100, Unit: "%", Thresholds: []Threshold{{60, "yellow"}, {90, "red"}}}, Options{ID: "g"})
	}
}

func BenchmarkHeatmap(b *testing.B) {
	_, series := benchSeries(24, 7)
	rows := make([][]float64, len(series))
	for i, s := range series {
		rows[i] = s.Values
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Heatmap(HeatmapSpec{Rows: []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}, Values: rows}, Options{ID: "h"})
	}
}
