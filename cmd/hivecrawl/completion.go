package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"
)

func init() {
	register(command{name: "completion", summary: "print a shell completion script: completion bash|zsh|fish",
		args: "bash|zsh|fish", help: completionHelp, words: shells, run: runCompletion})
}

// shells are the shells 'hivecrawl completion' writes scripts for.
var shells = []string{"bash", "zsh", "fish"}

const completionHelp = `Prints a script that completes hivecrawl's commands, their flags and
their arguments in the shell named. It is written from the commands the
program has, so it matches the hivecrawl it came from. The .deb installs
all three; to load one by hand:

  bash  source <(hivecrawl completion bash)
  zsh   hivecrawl completion zsh > "${fpath[1]}/_hivecrawl"
  fish  hivecrawl completion fish | source`

func runCompletion(_ context.Context, args []string) int {
	return completionMain(args, os.Stdout, os.Stderr)
}

func completionMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("completion")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	t, ok := completionScripts[fs.Arg(0)]
	if !ok {
		fmt.Fprintf(stderr, "hivecrawl completion: no script for %q: name bash, zsh or fish\n", fs.Arg(0))
		return 2
	}
	if err := t.Execute(stdout, completionData()); err != nil {
		fmt.Fprintln(stderr, "hivecrawl completion:", err)
		return 1
	}
	return 0
}

// compCommand is what a completion script knows of a command.
type compCommand struct {
	Name, Summary string
	Words         []string
	Flags         []compFlag
}

// compFlag is what a completion script knows of a flag: its name, with
// its dashes in Dashed. Value is "" for a boolean; Kind says what its
// value completes to: "file", "dir" or "" (nothing offered).
type compFlag struct {
	Name, Dashed, Usage, Value, Kind string
}

// completionData lists the commands for the scripts: the command table's,
// and the words dispatch answers itself.
func completionData() []compCommand {
	cmds := []compCommand{
		{Name: "help", Summary: "list the commands"},
		{Name: "version", Summary: "print the version and the commit"},
	}
	for _, c := range listed() {
		cc := compCommand{Name: c.name, Summary: c.summary, Words: c.words}
		if c.flags != nil {
			for _, f := range sortedFlags(c.flags()) {
				value, usage := flag.UnquoteUsage(f)
				cf := compFlag{Name: f.Name, Dashed: dashed(f.Name), Usage: usage}
				if takesValue(f) {
					cf.Value = value
					if cf.Value == "" {
						cf.Value = "value"
					}
					switch value {
					case "FILE", "PATH":
						cf.Kind = "file"
					case "DIR":
						cf.Kind = "dir"
					}
				}
				cc.Flags = append(cc.Flags, cf)
			}
		}
		cmds = append(cmds, cc)
	}
	return cmds
}

var completionScripts = map[string]*template.Template{
	"bash": template.Must(template.New("bash").Funcs(completionFuncs).Parse(bashCompletion)),
	"zsh":  template.Must(template.New("zsh").Funcs(completionFuncs).Parse(zshCompletion)),
	"fish": template.Must(template.New("fish").Funcs(completionFuncs).Parse(fishCompletion)),
}

var completionFuncs = template.FuncMap{
	"join": strings.Join,
	// zshDesc quotes s for a single-quoted zsh _arguments or _describe
	// item, whose brackets and colons are syntax.
	"zshDesc": func(s string) string {
		return strings.NewReplacer(`'`, `'\''`, `\`, `\\`, `[`, `\[`, `]`, `\]`, `:`, `\:`).Replace(oneLine(s))
	},
	// fishQuote quotes s in fish's single quotes.
	"fishQuote": func(s string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(oneLine(s)) + "'"
	},
}

// bashCompletion completes the command, then its flags, and its first
// argument from its words. A flag's value, and anything else, is left to
// bash's default (file names).
const bashCompletion = `# bash completion for hivecrawl, written by 'hivecrawl completion bash'.
_hivecrawl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local words="" flags="" valued="" i n=0
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "{{range .}}{{.Name}} {{end}}--help --version" -- "$cur"))
		return
	fi
	case ${COMP_WORDS[1]} in
{{- range .}}
	{{.Name}})
		words="{{join .Words " "}}"
		flags="{{range $i, $f := .Flags}}{{if $i}} {{end}}{{$f.Dashed}}{{end}}"
		valued="{{range .Flags}}{{if .Value}} --{{.Name}} -{{.Name}}{{end}}{{end}} "
		;;
{{- end}}
	*) return ;;
	esac
	case $valued in *" $prev "*) return ;; esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
		return
	fi
	for ((i = 2; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) case $valued in *" ${COMP_WORDS[i]} "*) ((i++)) ;; esac ;;
		*) ((n++)) ;;
		esac
	done
	if ((n == 0)) && [[ -n $words ]]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	fi
}
complete -o default -F _hivecrawl hivecrawl
`

const zshCompletion = `#compdef hivecrawl
# zsh completion for hivecrawl, written by 'hivecrawl completion zsh'.

_hivecrawl() {
	local -a commands
	commands=(
{{- range .}}
		'{{.Name}}:{{zshDesc .Summary}}'
{{- end}}
	)
	if (( CURRENT == 2 )); then
		_describe -t commands 'hivecrawl command' commands
		return
	fi
	local cmd=$words[2]
	shift words
	(( CURRENT-- ))
	case $cmd in
{{- range .}}
	{{.Name}})
		_arguments -S \
{{- range .Flags}}
			'{{.Dashed}}{{if .Value}}={{end}}[{{zshDesc .Usage}}]{{if .Value}}:{{.Value}}:{{if eq .Kind "file"}}_files{{else if eq .Kind "dir"}}_files -/{{else}} {{end}}{{end}}' \
{{- end}}
{{- if .Words}}
			'1: :({{join .Words " "}})' \
{{- end}}
			'*: :_files'
		;;
{{- end}}
	esac
}

if [ "$funcstack[1]" = "_hivecrawl" ]; then
	_hivecrawl "$@"
else
	compdef _hivecrawl hivecrawl
fi
`

const fishCompletion = `# fish completion for hivecrawl, written by 'hivecrawl completion fish'.
complete -c hivecrawl -f
complete -c hivecrawl -n __fish_use_subcommand -l help -d 'list the commands'
complete -c hivecrawl -n __fish_use_subcommand -l version -d 'print the version and the commit'
{{- range .}}
complete -c hivecrawl -n __fish_use_subcommand -a {{.Name}} -d {{fishQuote .Summary}}
{{- $cond := printf "'__fish_seen_subcommand_from %s'" .Name}}
{{- range .Flags}}
complete -c hivecrawl -n {{$cond}} {{if eq (len .Name) 1}}-o{{else}}-l{{end}} {{.Name}}{{if eq .Kind "file" "dir"}} -r -F{{else if .Value}} -x{{end}} -d {{fishQuote .Usage}}
{{- end}}
{{- if .Words}}
complete -c hivecrawl -n {{$cond}} -a '{{join .Words " "}}'
{{- else}}
complete -c hivecrawl -n {{$cond}} -F
{{- end}}
{{- end}}
`
