module example.com/mv

go 1.22
