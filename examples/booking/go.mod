module example.com/booking

go 1.22
