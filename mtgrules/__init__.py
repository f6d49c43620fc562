"""The command line, `mtgrules`: build the index and read rules, rulings, cards, terms and
search results from it in a terminal.

It sits above every other package (`indexer` makes and answers from the index, `webapp`
shapes what a page shows, which the terminal prints too), and nothing imports it: the web app
gets `flask --app webapp kb ...` from the installed package's `flask.commands` entry point.
`commands` is the click group, `terminal` the text it prints.
"""
