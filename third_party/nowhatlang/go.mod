module github.com/RadhiFadlillah/whatlanggo

go 1.20
