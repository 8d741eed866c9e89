import StoreCore
print("storefront")
