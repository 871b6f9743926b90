module example.com/tp

go 1.22
