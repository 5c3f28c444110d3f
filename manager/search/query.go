package search

import (
	"reflect"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// searchedFields are the fields a query's words without a field name are
// looked for in. The index keeps no catch-all field (bleve's _all), which
// would index every page's text a second time, term vectors and all.
var searchedFields = []string{"title", "text"}

// parse reads q as a query string and points each of its clauses that
// names no field at every one of searchedFields: "bees -wasps" is
// (title:bees OR text:bees) AND NOT (title:wasps OR text:wasps), what the
// catch-all field answered.
func parse(q string) (query.Query, error) {
	parsed, err := bleve.NewQueryStringQuery(q).Parse()
	if err != nil {
		return nil, err
	}
	return spread(parsed), nil
}

// spread rewrites q's field-less clauses in place and returns it, or the
// disjunction that replaces it.
func spread(q query.Query) query.Query {
	switch q := q.(type) {
	case *query.BooleanQuery:
		q.Must = spreadOrNil(q.Must)
		q.Should = spreadOrNil(q.Should)
		q.MustNot = spreadOrNil(q.MustNot)
		q.Filter = spreadOrNil(q.Filter)
		return q
	case *query.ConjunctionQuery:
		for i, c := range q.Conjuncts {
			q.Conjuncts[i] = spread(c)
		}
		return q
	case *query.DisjunctionQuery:
		for i, d := range q.Disjuncts {
			q.Disjuncts[i] = spread(d)
		}
		return q
	case query.FieldableQuery:
		if q.Field() != "" {
			return q
		}
		any := make([]query.Query, 0, len(searchedFields))
		for _, f := range searchedFields {
			c := shallowCopy(q)
			c.SetField(f)
			any = append(any, c)
		}
		return query.NewDisjunctionQuery(any)
	}
	return q
}

func spreadOrNil(q query.Query) query.Query {
	if q == nil || reflect.ValueOf(q).IsNil() {
		return q
	}
	return spread(q)
}

// shallowCopy copies the struct q points to; a query's field is a plain
// string of it, so setting the copy's leaves q as it was.
func shallowCopy(q query.FieldableQuery) query.FieldableQuery {
	v := reflect.ValueOf(q)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return q
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	return c.Interface().(query.FieldableQuery)
}
