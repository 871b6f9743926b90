module example.com/ex

go 1.22
