package x

var B = 2
