module example.com/mask

go 1.21
