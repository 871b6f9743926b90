module example.com/lint

go 1.21
