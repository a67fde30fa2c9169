/**
 * Freezes `Object.prototype` in an extraction worker, so a parser tricked into writing through a
 * `__proto__` or `constructor.prototype` key (CVE-2023-30533 in SheetJS 0.18.5 was one) cannot
 * add or change what every object of the thread inherits.
 *
 * A plain freeze breaks ordinary code: once `constructor` or `toString` is read-only on the
 * prototype, assigning `Child.prototype.constructor = Child` or `obj.toString = fn` throws in
 * strict code (the language's "override mistake"), and several readers do exactly that when they
 * load. So each writable property is first turned into an accessor whose setter gives the object
 * assigned to its own property, as an assignment would have; writing to the prototype itself still fails.
 */
export const freezeObjectPrototype = (): void => {
  const prototype = Object.prototype as Record<string, unknown>
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name)
    if (descriptor === undefined || !("value" in descriptor) || descriptor.writable !== true) continue
    const value: unknown = descriptor.value
    Object.defineProperty(prototype, name, {
      configurable: false,
      enumerable: descriptor.enumerable ?? false,
      get: () => value,
      set(this: object, next: unknown) {
        if (this === prototype) throw new TypeError(`Object.prototype.${name} is frozen in extraction workers`)
        Object.defineProperty(this, name, { value: next, writable: true, enumerable: true, configurable: true })
      }
    })
  }
  Object.freeze(prototype)
}
