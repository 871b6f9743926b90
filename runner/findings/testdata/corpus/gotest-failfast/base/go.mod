module example.com/ff

go 1.22
