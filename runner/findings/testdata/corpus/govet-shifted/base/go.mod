module example.com/vetdup

go 1.21
